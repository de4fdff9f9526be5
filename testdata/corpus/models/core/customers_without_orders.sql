-- ANTI JOIN.
MODEL (
  name core.customers_without_orders
);

SELECT customers.customer_id, customers.name
FROM @ref(raw.customers) ANTI JOIN @ref(raw.orders) ON customers.customer_id = orders.customer_id
ORDER BY customers.customer_id
