MODEL (name hand.interp_names, kind FULL);

SELECT
  customer_id AS größe_id,
  tier AS my_größe_tier,
  city AS vor_größe,
  country AS land_vor
FROM @ref(raw.customers)
