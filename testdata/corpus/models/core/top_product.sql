-- TPC-H Q15: a CTE and a scalar subquery over it.
MODEL (
  name core.top_product
);

WITH revenue AS (
  SELECT lineitem.product_id AS product_id,
         sum(lineitem.unit_price * lineitem.quantity * (1 - lineitem.discount)) AS total_revenue
  FROM @ref(raw.lineitem)
  WHERE lineitem.shipdate >= DATE '2024-04-01' AND lineitem.shipdate < DATE '2024-07-01'
  GROUP BY lineitem.product_id
)
SELECT products.product_id, products.name, revenue.total_revenue
FROM @ref(raw.products), revenue
WHERE products.product_id = revenue.product_id
  AND revenue.total_revenue = (SELECT max(total_revenue) FROM revenue)
ORDER BY products.product_id
