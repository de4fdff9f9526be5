MODEL (name bad.union_types, kind FULL);

SELECT order_id AS v FROM @ref(raw.orders)
UNION
SELECT status FROM @ref(raw.orders)
