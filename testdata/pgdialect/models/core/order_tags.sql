MODEL (name core.order_tags, kind FULL);

SELECT o.order_id, t.tag, t.pos
FROM @ref(raw.orders) AS o, LATERAL unnest(o.tags) WITH ORDINALITY AS t(tag, pos)
