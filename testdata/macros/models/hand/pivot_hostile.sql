MODEL (name hand.pivot_hostile, kind FULL);

SELECT
  country,
  SUM(CASE WHEN city = 'New York' THEN 1 ELSE 0 END) AS "in New York",
  SUM(CASE WHEN city = 'Kraków' THEN 1 ELSE 0 END) AS "in Kraków",
  SUM(CASE WHEN city = '東京' THEN 1 ELSE 0 END) AS "in 東京",
  SUM(CASE WHEN city = 'O''Neil' THEN 1 ELSE 0 END) AS "in O'Neil"
FROM @ref(raw.customers)
GROUP BY country
