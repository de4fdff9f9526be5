-- Two refs named orders in nested scopes: the inner one shadows.
MODEL (
  name mart.fulfilled_sample
);

SELECT orders.order_id, orders.order_date
FROM @ref(raw.orders)
WHERE orders.order_id IN (SELECT orders.order_id FROM @ref(mart.orders) WHERE orders.order_id % 50 = 0)
ORDER BY orders.order_id
