MODEL (name core.using_join, kind FULL);

SELECT customer_id, c."Full Name" AS name, o.order_id
FROM @ref(raw.customers) c
JOIN @ref(raw.orders) o USING (customer_id)
