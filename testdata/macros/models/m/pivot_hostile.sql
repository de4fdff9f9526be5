-- @PIVOT of values that make hostile names: spaces, non-ASCII, a quote.
MODEL (name m.pivot_hostile, kind FULL);

SELECT
  country,
  @PIVOT(city, ['New York', 'Kraków', '東京', 'O''Neil'], prefix := 'in ')
FROM @ref(raw.customers)
GROUP BY country
