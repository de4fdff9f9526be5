-- INTERSECT: customers who ordered in both years.
MODEL (
  name core.loyal_customers
);

SELECT orders.customer_id FROM @ref(raw.orders) WHERE year(orders.order_date) = 2024
INTERSECT
SELECT orders.customer_id FROM @ref(raw.orders) WHERE year(orders.order_date) = 2025
ORDER BY 1
