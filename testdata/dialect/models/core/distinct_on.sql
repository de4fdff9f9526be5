MODEL (name core.distinct_on, kind FULL);

SELECT DISTINCT ON (t.symbol) t.symbol, t.trade_id, t.price
FROM @ref(raw.trades) AS t
ORDER BY t.symbol, t.price DESC, t.trade_id
