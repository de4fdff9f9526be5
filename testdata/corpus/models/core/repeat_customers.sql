-- A self-join: one side unaliased, the other aliased.
MODEL (
  name core.repeat_customers
);

SELECT orders.customer_id, orders.order_id, count(prev.order_id) AS earlier_orders
FROM @ref(raw.orders) JOIN @ref(raw.orders) AS prev
  ON prev.customer_id = orders.customer_id AND prev.order_date < orders.order_date
WHERE orders.customer_id <= 10
GROUP BY orders.customer_id, orders.order_id
