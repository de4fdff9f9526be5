MODEL (name core.date_math, kind FULL);

SELECT order_id,
       ordered_at::date + 7 AS due,
       ordered_at::date - date '2024-01-01' AS days_in,
       ordered_at + interval '1 day' AS next_day,
       ordered_at - interval '1 hour' AS prev_hour,
       age(timestamp '2024-12-31', ordered_at) AS age_eoy,
       date_trunc('week', ordered_at) AS week,
       extract(epoch FROM ordered_at) AS epoch,
       date_part('month', ordered_at) AS month,
       make_date(2024, 1, 1) + qty * interval '1 day' AS shifted,
       ordered_at::date + time '12:00' AS noon
FROM @ref(raw.orders)
