MODEL (name core.web_orders, kind FULL);

SELECT order_id, amount, tags[1] AS first_tag, tags || 'x'::text AS more_tags
FROM @ref(raw.orders)
WHERE 'web' = ANY (tags) AND status = ANY (ARRAY['paid', 'shipped'])
