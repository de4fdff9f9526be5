MODEL (name bad.bad_cast, kind FULL);

SELECT order_id, 'many'::int AS n
FROM @ref(raw.orders)
