MODEL (name core.pivot_select, kind FULL);

SELECT *
FROM (PIVOT @ref(raw.sales) ON "Year" IN (2022, 2023, 2024) USING sum(q2) GROUP BY product) AS pv
ORDER BY product
