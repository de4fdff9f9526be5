-- TPC-H Q6: a single scalar.
MODEL (
  name core.revenue_change,
  kind VIEW
);

SELECT sum(lineitem.unit_price * lineitem.discount) AS revenue
FROM @ref(raw.lineitem)
WHERE lineitem.shipdate >= DATE '2024-01-01'
  AND lineitem.shipdate < DATE '2024-01-01' + INTERVAL 1 YEAR
  AND lineitem.discount BETWEEN 0.05 AND 0.07
  AND lineitem.quantity < 24
