-- TPC-H Q5 over nations (non-ASCII names).
MODEL (
  name core.local_volume
);

SELECT nations.name, sum(lineitem.unit_price * lineitem.quantity * (1 - lineitem.discount)) AS revenue
FROM @ref(raw.customers), @ref(raw.orders), @ref(raw.lineitem), @ref(raw.nations)
WHERE customers.customer_id = orders.customer_id
  AND lineitem.order_id = orders.order_id
  AND customers.nation_id = nations.nation_id
  AND nations.region = 'EUROPE'
  AND orders.order_date >= DATE '2024-01-01'
  AND orders.order_date < DATE '2025-01-01'
GROUP BY nations.name
ORDER BY revenue DESC, nations.name
