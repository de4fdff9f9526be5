-- Same table name as raw.orders, another schema.
MODEL (
  name mart.orders,
  kind VIEW
);

SELECT orders.order_id, orders.customer_id, orders.status
FROM @ref(raw.orders)
WHERE orders.status = 'F'
