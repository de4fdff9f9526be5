-- TPC-H Q18: IN (… GROUP BY … HAVING).
MODEL (
  name core.large_volume_customers
);

SELECT customers.name, customers.customer_id, orders.order_id, orders.order_date, sum(lineitem.quantity) AS total_qty
FROM @ref(raw.customers), @ref(raw.orders), @ref(raw.lineitem)
WHERE orders.order_id IN (
    SELECT lineitem.order_id FROM @ref(raw.lineitem)
    GROUP BY lineitem.order_id HAVING sum(lineitem.quantity) > 110
  )
  AND customers.customer_id = orders.customer_id
  AND orders.order_id = lineitem.order_id
GROUP BY customers.name, customers.customer_id, orders.order_id, orders.order_date
ORDER BY total_qty DESC, orders.order_date, orders.order_id
LIMIT 20
