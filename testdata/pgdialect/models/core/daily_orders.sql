MODEL (name core.daily_orders, kind FULL);

SELECT d.day, coalesce(x.n, 0) AS orders, x.revenue
FROM @ref(core.days) d
LEFT JOIN LATERAL (
  SELECT count(*) AS n, sum(o.amount) AS revenue
  FROM @ref(raw.orders) o
  WHERE o.ordered_at::date = d.day
) x ON true
