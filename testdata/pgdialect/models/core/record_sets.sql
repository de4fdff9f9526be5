MODEL (name core.record_sets, kind FULL);

SELECT o.order_id, r.sku, r.n, e.key, e.value
FROM @ref(raw.orders) o
CROSS JOIN LATERAL jsonb_to_recordset(o.payload -> 'items') AS r(sku text, n int)
LEFT JOIN LATERAL jsonb_each_text(o.payload -> 'ship') AS e ON true
