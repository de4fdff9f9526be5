MODEL (name bad.func_args, kind FULL);

SELECT order_id, date_trunc('day', status) AS d
FROM @ref(raw.orders)
