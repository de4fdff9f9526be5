MODEL (name raw.trades, kind FULL, grain (trade_id));

SELECT
  i::INTEGER AS trade_id,
  ['ACME', 'GLOBX', 'INIT'][i % 3 + 1] AS symbol,
  TIMESTAMP '2024-03-01 09:00:00' + INTERVAL (i * 7) MINUTE AS ts,
  (100 + i * 3 % 17 + (i % 7) / 4)::DECIMAL(10, 2) AS price,
  (i * 11 % 50 + 1)::INTEGER AS qty
FROM range(1, 121) AS g(i)
