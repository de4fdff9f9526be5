MODEL (name core.ship, kind FULL);

SELECT order_id,
       payload #> '{ship,city}' AS city_json,
       payload #>> '{ship,zip}' AS zip,
       payload @> '{"gift": true}' AS is_gift,
       payload ? 'ship' AS has_ship,
       jsonb_typeof(payload -> 'gift') AS gift_type,
       payload -> 'items' -> 0 ->> 'sku' AS first_sku
FROM @ref(raw.orders)
