MODEL (name core.sku_list, kind FULL);

SELECT i.sku,
       string_agg(DISTINCT i.order_id::text, ',' ORDER BY i.order_id::text) AS orders,
       sum(i.n) AS units,
       count(DISTINCT i.order_id) AS n_orders
FROM @ref(core.order_items) i
GROUP BY i.sku
