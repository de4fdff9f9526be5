-- A RANGE frame over dates.
MODEL (
  name core.daily_moving_average
);

WITH daily AS (
  SELECT orders.order_date AS d, count(*) AS orders_per_day
  FROM @ref(raw.orders)
  GROUP BY orders.order_date
)
SELECT
  daily.d,
  daily.orders_per_day,
  avg(daily.orders_per_day) OVER (ORDER BY daily.d RANGE BETWEEN INTERVAL 6 DAY PRECEDING AND CURRENT ROW) AS avg_7d
FROM daily
ORDER BY daily.d
