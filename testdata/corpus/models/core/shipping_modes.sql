-- TPC-H Q12: CASE sums over a JOIN … ON by table names.
MODEL (
  name core.shipping_modes
);

SELECT
  orders.status,
  sum(CASE WHEN orders.priority = '1-URGENT' OR orders.priority = '2-HIGH' THEN 1 ELSE 0 END) AS high_line_count,
  sum(CASE WHEN orders.priority <> '1-URGENT' AND orders.priority <> '2-HIGH' THEN 1 ELSE 0 END) AS low_line_count
FROM @ref(raw.orders) JOIN @ref(raw.lineitem) ON orders.order_id = lineitem.order_id
WHERE lineitem.receiptdate > lineitem.shipdate
  AND lineitem.receiptdate >= DATE '2024-01-01'
  AND lineitem.receiptdate < DATE '2025-01-01'
GROUP BY orders.status
ORDER BY orders.status
