-- ORDER BY with NULLS FIRST, LIMIT and OFFSET.
MODEL (
  name core.order_page
);

SELECT orders.order_id, orders.comment
FROM @ref(raw.orders)
ORDER BY orders.comment NULLS FIRST, orders.order_id DESC
LIMIT 15 OFFSET 370
