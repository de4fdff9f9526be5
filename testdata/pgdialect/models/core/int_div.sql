MODEL (name core.int_div, kind FULL);

SELECT customer_id,
       sum(qty) AS total_qty,
       sum(qty::bigint) AS total_big,
       sum(qty::smallint) AS total_small,
       sum(amount) AS total_amount,
       avg(qty) AS avg_qty,
       sum(qty) / count(*) AS int_div,
       sum(qty)::numeric / count(*) AS num_div,
       7 / 2 AS seven_half,
       7 / 2.0 AS seven_half_num,
       7 % 3 AS modulo,
       round(avg(amount), 2) AS avg_amount,
       sum(amount * qty) AS gross,
       max(amount) - min(amount) AS spread,
       sum(1.5 * qty) AS weird,
       stddev(qty) AS sd,
       count(amount) AS n_amount,
       sum(qty::float4) AS f4,
       avg(qty::float8) AS f8
FROM @ref(raw.orders)
GROUP BY customer_id
