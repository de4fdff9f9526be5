-- TPC-H Q3: comma joins, qualifiers are the table names.
MODEL (
  name core.shipping_priority
);

SELECT
  lineitem.order_id,
  sum(lineitem.unit_price * lineitem.quantity * (1 - lineitem.discount)) AS revenue,
  orders.order_date,
  orders.priority
FROM @ref(raw.customers), @ref(raw.orders), @ref(raw.lineitem)
WHERE customers.segment = 'BUILDING'
  AND customers.customer_id = orders.customer_id
  AND lineitem.order_id = orders.order_id
  AND orders.order_date < DATE '2024-06-15'
  AND lineitem.shipdate > DATE '2024-03-15'
GROUP BY lineitem.order_id, orders.order_date, orders.priority
ORDER BY revenue DESC, orders.order_date, lineitem.order_id
LIMIT 10
