-- Conditional aggregation as a pivot.
MODEL (
  name core.status_pivot
);

SELECT
  orders.priority,
  count(*) FILTER (WHERE orders.status = 'O') AS open,
  count(*) FILTER (WHERE orders.status = 'F') AS fulfilled,
  count(*) FILTER (WHERE orders.status = 'P') AS pending,
  sum(CASE orders.status WHEN 'F' THEN orders.shipping_cost ELSE 0 END) AS fulfilled_shipping
FROM @ref(raw.orders)
GROUP BY orders.priority
ORDER BY orders.priority
