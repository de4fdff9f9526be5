-- error at: 'x'
MODEL (name bad.string_vs_int, kind FULL);

SELECT t.trade_id
FROM @ref(raw.trades) AS t
WHERE t.qty < 'x'
