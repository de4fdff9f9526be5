MODEL (name raw.quotes, kind FULL);

FROM range(0, 90) AS g(i)
SELECT
  ['ACME', 'GLOBX', 'INIT'][i % 3 + 1] AS symbol,
  TIMESTAMP '2024-03-01 08:55:00' + INTERVAL (i * 10) MINUTE AS ts,
  round(99.5 + i % 13 * 0.25, 2) AS bid
