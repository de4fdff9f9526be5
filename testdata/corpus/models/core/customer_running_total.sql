-- A ROWS frame per customer.
MODEL (
  name core.customer_running_total
);

SELECT
  orders.customer_id,
  orders.order_id,
  orders.order_date,
  sum(orders.shipping_cost) OVER (
    PARTITION BY orders.customer_id
    ORDER BY orders.order_date, orders.order_id
    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
  ) AS running_shipping
FROM @ref(raw.orders)
WHERE orders.customer_id <= 20
