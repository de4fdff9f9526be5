-- A recursive CTE joined to a ref.
MODEL (
  name core.months_calendar
);

WITH RECURSIVE months(m) AS (
  SELECT DATE '2024-01-01'
  UNION ALL
  SELECT CAST(m + INTERVAL 1 MONTH AS DATE) FROM months WHERE m < DATE '2025-12-01'
)
SELECT months.m, count(orders.order_id) AS orders
FROM months LEFT JOIN @ref(raw.orders) ON date_trunc('month', orders.order_date) = months.m
GROUP BY months.m
ORDER BY months.m
