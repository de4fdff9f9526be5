MODEL (name bad.alias_in_where, kind FULL);

SELECT order_id, amount * 2 AS doubled
FROM @ref(raw.orders)
WHERE doubled > 100
