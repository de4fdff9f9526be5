MODEL (name core.cube_sales, kind FULL);

SELECT status, date_trunc('month', ordered_at) AS month, sum(amount) AS revenue, GROUPING(status) AS gs
FROM @ref(raw.orders)
GROUP BY CUBE (status, date_trunc('month', ordered_at))
