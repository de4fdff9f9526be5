MODEL (name bad.having_ungrouped, kind FULL);

SELECT customer_id, count(*) AS n
FROM @ref(raw.orders)
GROUP BY customer_id
HAVING status = 'paid'
