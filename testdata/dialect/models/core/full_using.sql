-- A FULL JOIN USING: the shared column is the coalesce of both sides.
MODEL (name core.full_using, kind FULL);

SELECT symbol, t.n, q.m
FROM (SELECT symbol, count(*) AS n FROM @ref(raw.trades) WHERE qty > 25 GROUP BY symbol) AS t
FULL JOIN (SELECT symbol, count(*) AS m FROM @ref(raw.quotes) WHERE bid > 102 GROUP BY symbol) AS q USING (symbol)
