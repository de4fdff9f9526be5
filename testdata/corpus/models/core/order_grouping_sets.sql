-- GROUPING SETS including the grand total.
MODEL (
  name core.order_grouping_sets
);

SELECT orders.status, orders.priority, count(*) AS n, sum(orders.shipping_cost) AS shipping
FROM @ref(raw.orders)
GROUP BY GROUPING SETS ((orders.status), (orders.priority), ())
