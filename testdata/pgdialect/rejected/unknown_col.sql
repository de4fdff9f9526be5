MODEL (name bad.unknown_col, kind FULL);

SELECT o.order_id, o.shipped_at
FROM @ref(raw.orders) AS o
