MODEL (name core.order_items, kind FULL);

-- A lateral set-returning function over a jsonb array; -> and ->>.
SELECT o.order_id,
       item ->> 'sku' AS sku,
       (item ->> 'n')::int AS n,
       item -> 'n' AS n_json
FROM @ref(raw.orders) o
CROSS JOIN LATERAL jsonb_array_elements(o.payload -> 'items') AS item
