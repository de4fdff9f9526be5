-- QUALIFY keeps each customer's latest order.
MODEL (
  name core.latest_order,
  columns (customer_id INTEGER, order_id INTEGER, order_date DATE, status TEXT)
);

SELECT orders.customer_id, orders.order_id, orders.order_date, orders.status
FROM @ref(raw.orders)
QUALIFY row_number() OVER (PARTITION BY orders.customer_id ORDER BY orders.order_date DESC, orders.order_id DESC) = 1
