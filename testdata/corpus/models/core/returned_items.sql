-- TPC-H Q10: top customers by returned revenue.
MODEL (
  name core.returned_items,
  columns (customer_id INTEGER, name TEXT, revenue DECIMAL(38,4), acctbal DECIMAL(12,2), nation TEXT, email TEXT)
);

SELECT
  customers.customer_id,
  customers.name,
  sum(lineitem.unit_price * lineitem.quantity * (1 - lineitem.discount)) AS revenue,
  customers.acctbal,
  nations.name AS nation,
  customers.email
FROM @ref(raw.customers), @ref(raw.orders), @ref(raw.lineitem), @ref(raw.nations)
WHERE customers.customer_id = orders.customer_id
  AND lineitem.order_id = orders.order_id
  AND orders.order_date >= DATE '2024-10-01'
  AND orders.order_date < DATE '2025-01-01'
  AND lineitem.returnflag = 'R'
  AND customers.nation_id = nations.nation_id
GROUP BY customers.customer_id, customers.name, customers.acctbal, customers.email, nations.name
ORDER BY revenue DESC, customers.customer_id
LIMIT 20
