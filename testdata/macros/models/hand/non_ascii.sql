MODEL (name hand.non_ascii, kind FULL);

SELECT
  customer_id,
  city = 'Kraków' AS Kraków_ist,
  city = 'Malmö' AS Malmö_ist,
  city = '東京' AS 東京_ist,
  '@EACH(x) ünd @{y}' AS literal_at,
  'Grüße' AS "Grüße"
FROM @ref(raw.customers)
