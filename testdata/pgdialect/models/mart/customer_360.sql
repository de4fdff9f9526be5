MODEL (name mart.customer_360, kind VIEW);

SELECT c.customer_id, c."Full Name", s.paid, s.kept, a.order_ids, b.total, coalesce(b.half, 0) AS half
FROM @ref(raw.customers) c
LEFT JOIN @ref(core.status_counts) s ON s.customer_id = c.customer_id
LEFT JOIN @ref(core.customer_arrays) a ON a.customer_id = c.customer_id
LEFT JOIN @ref(core.big_customers) b ON b.customer_id = c.customer_id
