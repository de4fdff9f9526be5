MODEL (name core.rolling, kind FULL);

SELECT order_id, ordered_at, amount,
       sum(amount) OVER w7 AS sum_7d,
       count(*) OVER w7 AS n_7d,
       avg(amount) OVER (ORDER BY ordered_at ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS avg2,
       rank() OVER wc AS rnk,
       lag(amount, 1, 0) OVER wc AS prev_amount,
       row_number() OVER (wc) AS rn
FROM @ref(raw.orders)
WINDOW w7 AS (ORDER BY ordered_at RANGE BETWEEN INTERVAL '7 days' PRECEDING AND CURRENT ROW),
       wc AS (PARTITION BY customer_id ORDER BY ordered_at)
