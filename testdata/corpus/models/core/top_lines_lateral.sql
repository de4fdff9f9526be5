-- LATERAL: the two largest lines of each early order.
MODEL (
  name core.top_lines_lateral
);

SELECT orders.order_id, top.line_no, top.quantity
FROM @ref(raw.orders),
  LATERAL (
    SELECT lineitem.line_no, lineitem.quantity
    FROM @ref(raw.lineitem)
    WHERE lineitem.order_id = orders.order_id
    ORDER BY lineitem.quantity DESC, lineitem.line_no
    LIMIT 2
  ) AS top
WHERE orders.order_id <= 40
