-- DuckDB's FROM-first syntax.
MODEL (
  name core.from_first
);

FROM @ref(raw.orders)
SELECT orders.status, count(*) AS n, sum(orders.shipping_cost) AS shipping
WHERE orders.order_date >= DATE '2025-01-01'
GROUP BY orders.status
ORDER BY orders.status
