MODEL (name bad.any_types, kind FULL);

SELECT order_id
FROM @ref(raw.orders)
WHERE qty = ANY (tags)
