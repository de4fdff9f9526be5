MODEL (name core.group_by_all, kind VIEW);

SELECT t.symbol, date_trunc('hour', t.ts) AS hour, sum(t.qty) AS qty, max(t.price) AS high
FROM @ref(raw.trades) AS t
GROUP BY ALL
ORDER BY ALL
