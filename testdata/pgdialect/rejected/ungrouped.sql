MODEL (name bad.ungrouped, kind FULL);

SELECT customer_id, status, count(*) AS n
FROM @ref(raw.orders)
GROUP BY customer_id
