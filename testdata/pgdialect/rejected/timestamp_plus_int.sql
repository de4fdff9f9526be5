MODEL (name bad.timestamp_plus_int, kind FULL);

SELECT order_id, ordered_at + 7 AS due
FROM @ref(raw.orders)
