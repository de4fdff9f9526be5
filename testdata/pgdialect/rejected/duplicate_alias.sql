MODEL (name bad.duplicate_alias, kind FULL);

SELECT o.order_id
FROM @ref(raw.orders) o
JOIN @ref(raw.customers) o ON true
