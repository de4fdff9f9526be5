-- Date functions.
MODEL (
  name core.monthly_orders
);

SELECT
  date_trunc('month', orders.order_date) AS month,
  strftime(date_trunc('month', orders.order_date), '%Y-%m') AS label,
  extract(year FROM orders.order_date) AS y,
  last_day(min(orders.order_date)) AS month_end,
  count(*) AS orders,
  count(*) FILTER (WHERE dayofweek(orders.order_date) IN (0, 6)) AS weekend_orders,
  avg(date_diff('day', orders.order_date, DATE '2026-01-01')) AS avg_age_days
FROM @ref(raw.orders)
GROUP BY 1, 2, 3
ORDER BY month
