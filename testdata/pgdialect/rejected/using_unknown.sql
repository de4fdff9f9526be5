MODEL (name bad.using_unknown, kind FULL);

SELECT order_id
FROM @ref(raw.orders) o
JOIN @ref(core.status_counts) s USING (order_id)
