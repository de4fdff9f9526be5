-- A correlated scalar subquery in the select list.
MODEL (
  name core.customer_order_counts,
  columns (customer_id INTEGER, n_orders BIGINT, last_order DATE)
);

SELECT
  customers.customer_id,
  (SELECT count(*) FROM @ref(raw.orders) WHERE orders.customer_id = customers.customer_id) AS n_orders,
  (SELECT max(orders.order_date) FROM @ref(raw.orders) WHERE orders.customer_id = customers.customer_id) AS last_order
FROM @ref(raw.customers)
WHERE customers.customer_id > 180
ORDER BY customers.customer_id
