MODEL (name mart.ties, kind FULL);

SELECT customer_id, count(*) AS n
FROM @ref(raw.orders)
GROUP BY 1
ORDER BY n DESC, customer_id
OFFSET 1 ROWS
FETCH FIRST 2 ROWS WITH TIES
