MODEL (name core.misc_pg, kind FULL);

SELECT order_id,
       regexp_matches(status, '(a|e)') AS vowels,
       string_to_array(status, 'a') AS pieces,
       CAST(amount AS DECIMAL) AS plain_amount,
       round(amount::float8) AS rounded,
       extract(dow FROM ordered_at::date) AS dow,
       age(ordered_at::date, date '2024-01-01') AS since,
       interval '1 month' * qty AS months,
       overlay(status placing 'XX' from 1 for 2) AS masked,
       split_part('7-8-9', '-', order_id % 3 + 1)::int AS part,
       jsonb_path_query_first(payload, '$.items[0].sku') AS first_sku
FROM @ref(raw.orders)
