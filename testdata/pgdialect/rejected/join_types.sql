MODEL (name bad.join_types, kind FULL);

SELECT o.order_id, c.city
FROM @ref(raw.orders) o
JOIN @ref(raw.customers) c ON o.customer_id = c.city
