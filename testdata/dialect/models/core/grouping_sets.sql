-- GROUPING SETS with grouping() telling the levels apart.
MODEL (name core.grouping_sets, kind FULL);

SELECT s.region, s.product, grouping(s.region, s.product) AS lvl, sum(s.q1) AS q1
FROM @ref(raw.sales) AS s
GROUP BY GROUPING SETS ((s.region, s.product), (s.region), ())
ORDER BY ALL
