-- error at: sum(t.qty)
MODEL (name bad.aggregate_in_where, kind FULL);

SELECT t.symbol
FROM @ref(raw.trades) AS t
WHERE sum(t.qty) > 10
