MODEL (name bad.text_plus_int, kind FULL);

SELECT order_id, status + 1 AS next_status
FROM @ref(raw.orders)
