MODEL (name bad.subquery_cols, kind FULL);

SELECT order_id
FROM @ref(raw.orders)
WHERE customer_id IN (SELECT customer_id, city FROM @ref(raw.customers))
