-- error at: order_id
MODEL (name bad.hostile_unquoted, kind FULL);

SELECT h."order id", h.order_id
FROM @ref(raw.hostile) AS h
