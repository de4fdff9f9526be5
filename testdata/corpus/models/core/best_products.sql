-- arg_max, arg_min, bool_and, HAVING.
MODEL (
  name core.best_products
);

SELECT
  lineitem.order_id,
  arg_max(lineitem.product_id, lineitem.quantity * 1000 + lineitem.line_no) AS biggest_product,
  arg_min(lineitem.line_no, lineitem.unit_price * 1000 + lineitem.line_no) AS cheapest_line,
  bool_and(lineitem.discount < 0.05) AS all_cheap
FROM @ref(raw.lineitem)
GROUP BY lineitem.order_id
HAVING count(*) >= 4 AND sum(lineitem.quantity) > 80
ORDER BY lineitem.order_id
