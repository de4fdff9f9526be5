-- An unaliased EMBEDDED ref: its subquery gets the table name as alias.
MODEL (
  name mart.big_order_customers
);

SELECT big_orders.customer_id, count(*) AS big_orders, max(big_orders.total) AS largest
FROM @ref(core.big_orders), @ref(raw.customers)
WHERE customers.customer_id = big_orders.customer_id
GROUP BY big_orders.customer_id
ORDER BY largest DESC, big_orders.customer_id
