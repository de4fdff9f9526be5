-- DISTINCT ON.
MODEL (
  name core.first_orders
);

SELECT DISTINCT ON (orders.customer_id) orders.customer_id, orders.order_id, orders.order_date
FROM @ref(raw.orders)
ORDER BY orders.customer_id, orders.order_date, orders.order_id
