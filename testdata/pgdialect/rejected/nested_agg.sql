MODEL (name bad.nested_agg, kind FULL);

SELECT customer_id, sum(count(*)) AS n
FROM @ref(raw.orders)
GROUP BY customer_id
