MODEL (name hand.def_values, kind FULL);

SELECT
  customer_id, tier,
  tier * 3 AS tripled,
  'Kunde' || ' ' || first_name AS greeting,
  country IN ('DE', 'FR', 'JP') AS in_list
FROM @ref(raw.customers)
