-- CTEs over CTEs, one with a WITH of its own.
MODEL (
  name core.nested_ctes
);

WITH per_order AS (
  SELECT lineitem.order_id, sum(lineitem.quantity * lineitem.unit_price) AS gross
  FROM @ref(raw.lineitem)
  GROUP BY lineitem.order_id
),
per_customer AS (
  WITH joined AS (
    SELECT orders.customer_id, per_order.gross
    FROM @ref(raw.orders) JOIN per_order ON per_order.order_id = orders.order_id
  )
  SELECT joined.customer_id, sum(joined.gross) AS gross, count(*) AS n
  FROM joined
  GROUP BY joined.customer_id
),
ranked AS (
  SELECT per_customer.*, rank() OVER (ORDER BY per_customer.gross DESC) AS r
  FROM per_customer
)
SELECT ranked.customer_id, ranked.gross, ranked.n, ranked.r, customers.segment
FROM ranked, @ref(raw.customers)
WHERE customers.customer_id = ranked.customer_id AND ranked.r <= 15
ORDER BY ranked.r, ranked.customer_id
