-- SELECT * EXCLUDE.
MODEL (
  name core.orders_slim,
  kind VIEW
);

SELECT * EXCLUDE (comment, shipping_cost)
FROM @ref(raw.orders)
WHERE orders.order_id % 10 = 0
