MODEL (name bad.distinct_on, kind FULL);

SELECT DISTINCT ON (customer_id) customer_id, order_id
FROM @ref(raw.orders)
ORDER BY order_id
