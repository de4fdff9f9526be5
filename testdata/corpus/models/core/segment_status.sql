-- GROUP BY ALL, ORDER BY ALL.
MODEL (
  name core.segment_status
);

SELECT customers.segment, orders.status, count(*) AS n, max(orders.order_date) AS last_order
FROM @ref(raw.orders), @ref(raw.customers)
WHERE orders.customer_id = customers.customer_id
GROUP BY ALL
ORDER BY ALL
