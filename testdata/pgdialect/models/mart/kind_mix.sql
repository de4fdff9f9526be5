MODEL (name mart.kind_mix, kind FULL);

SELECT l.status, l.label, coalesce(c.n, 0) AS n, c.revenue
FROM @ref(core.status_labels) l
NATURAL LEFT JOIN (
  SELECT status, count(*) AS n, sum(amount) AS revenue FROM @ref(core.orders_inc) JOIN @ref(raw.orders) USING (order_id, ordered_at, amount) GROUP BY status
) c
