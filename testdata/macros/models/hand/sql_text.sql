MODEL (name hand.sql_text, kind FULL);

SELECT
  customer_id,
  UPPER(first_name) AS upper_name,
  LOWER(last_name) AS lower_last,
  'Grüße, ' || first_name AS greeting
FROM @ref(raw.customers)
