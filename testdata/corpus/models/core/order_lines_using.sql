-- JOIN … USING with the shared column unqualified.
MODEL (
  name core.order_lines_using
);

SELECT order_id, orders.status, count(lineitem.line_no) AS lines, sum(lineitem.quantity) AS qty
FROM @ref(raw.orders) JOIN @ref(raw.lineitem) USING (order_id)
WHERE order_id BETWEEN 100 AND 130
GROUP BY order_id, orders.status
ORDER BY order_id
