MODEL (name hand.people_macros, kind FULL);

SELECT
  customer_id,
  first_name || ' ' || last_name AS name,
  last_name || ', ' || first_name AS sorted_name,
  city || ' · ' || '東京' AS city_line,
  'EU-' || COALESCE(CAST(tier AS TEXT), '?') AS label
FROM @ref(raw.customers)
