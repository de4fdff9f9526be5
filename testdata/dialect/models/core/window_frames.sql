-- Window frames: ROWS, RANGE with an interval, GROUPS, EXCLUDE.
MODEL (name core.window_frames, kind FULL);

SELECT
  t.trade_id,
  t.symbol,
  sum(t.qty) OVER (PARTITION BY t.symbol ORDER BY t.ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS qty3,
  avg(t.price) OVER (PARTITION BY t.symbol ORDER BY t.ts RANGE BETWEEN INTERVAL 1 HOUR PRECEDING AND CURRENT ROW) AS avg_hour,
  count(*) OVER (ORDER BY t.qty GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) AS neighbours,
  lag(t.price, 1, 0) OVER (PARTITION BY t.symbol ORDER BY t.ts) AS prev_price,
  first_value(t.price) OVER (PARTITION BY t.symbol ORDER BY t.ts) AS opening
FROM @ref(raw.trades) AS t
