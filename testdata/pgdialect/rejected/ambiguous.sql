MODEL (name bad.ambiguous, kind FULL);

SELECT customer_id, o.order_id
FROM @ref(raw.orders) o
JOIN @ref(raw.customers) c ON c.customer_id = o.customer_id
