MODEL (name mart.json_build, kind FULL);

SELECT c.customer_id,
       jsonb_build_object('name', c."Full Name", 'n', count(o.order_id)) AS doc,
       jsonb_agg(o.order_id ORDER BY o.order_id) FILTER (WHERE o.order_id IS NOT NULL) AS ids,
       (jsonb_build_object('a', 1) || jsonb_build_object('b', 2)) -> 'b' AS b,
       to_jsonb(c.tier) AS tier_json,
       json_build_array(c.city, c.country) AS pair
FROM @ref(raw.customers) c
LEFT JOIN @ref(raw.orders) o ON o.customer_id = c.customer_id
GROUP BY c.customer_id, c."Full Name", c.tier, c.city, c.country
