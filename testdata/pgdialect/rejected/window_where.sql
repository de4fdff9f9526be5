MODEL (name bad.window_where, kind FULL);

SELECT order_id
FROM @ref(raw.orders)
WHERE row_number() OVER (ORDER BY ordered_at) = 1
