MODEL (name core.rows_from, kind FULL);

SELECT o.order_id, z.tag, z.k
FROM @ref(raw.orders) o,
     ROWS FROM (unnest(o.tags), generate_series(1, 3)) AS z(tag, k)
