MODEL (name bad.distinct_order, kind VIEW);

SELECT DISTINCT customer_id
FROM @ref(raw.orders)
ORDER BY ordered_at
