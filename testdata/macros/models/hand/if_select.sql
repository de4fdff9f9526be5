MODEL (name hand.if_select, kind FULL);

SELECT
  customer_id,
  city AS place,
  'europe' AS zone,
  tier,
  first_name
FROM @ref(raw.customers)
