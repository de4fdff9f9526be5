-- A model read by others, with a contract.
MODEL (
  name core.order_totals,
  columns (order_id INTEGER, customer_id INTEGER, order_date DATE, total DECIMAL(38,4), lines BIGINT)
);

SELECT
  orders.order_id,
  orders.customer_id,
  orders.order_date,
  sum(lineitem.quantity * lineitem.unit_price * (1 - lineitem.discount)) AS total,
  count(*) AS lines
FROM @ref(raw.orders), @ref(raw.lineitem)
WHERE lineitem.order_id = orders.order_id
GROUP BY orders.order_id, orders.customer_id, orders.order_date
