-- error at: row_number
MODEL (name bad.window_in_where, kind FULL);

SELECT t.trade_id
FROM @ref(raw.trades) AS t
WHERE row_number() OVER (ORDER BY t.ts) = 1
