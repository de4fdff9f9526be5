MODEL (name bad.lateral_missing, kind FULL);

SELECT o.order_id, x.value
FROM @ref(raw.orders) o, (SELECT * FROM jsonb_array_elements(o.payload -> 'items')) x
