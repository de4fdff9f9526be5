-- A named WINDOW clause.
MODEL (
  name core.named_window
);

SELECT
  orders.customer_id,
  orders.order_id,
  row_number() OVER w AS n,
  first_value(orders.order_date) OVER w AS first_date,
  count(*) OVER (w ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS neighbours
FROM @ref(raw.orders)
WHERE orders.customer_id IN (1, 2, 3)
WINDOW w AS (PARTITION BY orders.customer_id ORDER BY orders.order_date, orders.order_id)
ORDER BY orders.customer_id, n
