-- generate_series as a relation, comma-joined.
MODEL (
  name core.weekday_series
);

SELECT d.day, count(orders.order_id) AS orders
FROM generate_series(DATE '2024-02-01', DATE '2024-02-29', INTERVAL 1 DAY) AS d(day), @ref(raw.orders)
WHERE orders.order_date = d.day
GROUP BY d.day
ORDER BY d.day
