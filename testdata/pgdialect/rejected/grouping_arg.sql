MODEL (name bad.grouping_arg, kind FULL);

SELECT customer_id, grouping(status) AS g, count(*) AS n
FROM @ref(raw.orders)
GROUP BY ROLLUP (customer_id)
