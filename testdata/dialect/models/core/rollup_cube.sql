MODEL (name core.rollup_cube, kind FULL);

SELECT region, "Year", grouping_id(region, "Year") AS gid, count(*) AS n, avg(q3) AS q3
FROM @ref(raw.sales)
GROUP BY CUBE (region, "Year")
UNION ALL
SELECT region, NULL, grouping(region), count(*), avg(q3)
FROM @ref(raw.sales)
GROUP BY ROLLUP (region)
