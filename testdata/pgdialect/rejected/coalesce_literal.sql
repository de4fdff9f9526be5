MODEL (name bad.coalesce_literal, kind FULL);

SELECT order_id, coalesce(amount, 'n/a') AS amount
FROM @ref(raw.orders)
