MODEL (name core.rollup_sales, kind FULL);

SELECT c.country, o.status, grouping(c.country, o.status) AS g, sum(o.qty) AS qty, count(*) AS n
FROM @ref(raw.orders) o
JOIN @ref(raw.customers) c ON c.customer_id = o.customer_id
GROUP BY ROLLUP (c.country, o.status)
