-- A VIEW over a model, qualified by the model's table name.
MODEL (
  name mart.customer_ltv,
  kind VIEW
);

SELECT
  customers.customer_id,
  customers.name,
  count(order_totals.order_id) AS orders,
  coalesce(sum(order_totals.total), 0) AS lifetime_value,
  min(order_totals.order_date) AS first_order
FROM @ref(raw.customers) LEFT JOIN @ref(core.order_totals) ON order_totals.customer_id = customers.customer_id
GROUP BY customers.customer_id, customers.name
