-- error at: qty,
MODEL (name bad.group_by_missing, kind FULL);

SELECT t.symbol, t.qty, sum(t.price) AS total
FROM @ref(raw.trades) AS t
GROUP BY t.symbol
