MODEL (name core.typed, kind FULL);

SELECT order_id::bigint AS id,
       amount::numeric(12,2) AS amount12,
       status::varchar(20) AS status20,
       ordered_at::timestamptz AS at_tz,
       (qty || ' days')::interval AS span,
       ordered_at::date AS day,
       amount::float8 AS amount_f,
       CAST(qty AS real) AS qty_r,
       qty::text AS qty_t,
       CAST(order_id AS decimal(8)) AS id_dec,
       status::char(3) AS st3,
       ordered_at::time(0) AS clock
FROM @ref(raw.orders)
