MODEL (name bad.srf_where, kind FULL);

SELECT order_id
FROM @ref(raw.orders)
WHERE generate_series(1, qty) > 2
