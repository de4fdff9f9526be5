-- TPC-DS style year over year: a CTE joined to itself.
MODEL (
  name mart.yearly_growth,
  columns (segment TEXT, y BIGINT, revenue DECIMAL(38,4), prev_revenue DECIMAL(38,4), growth_pct DOUBLE)
);

WITH yearly AS (
  SELECT customers.segment, year(order_totals.order_date) AS y, sum(order_totals.total) AS revenue
  FROM @ref(core.order_totals), @ref(raw.customers)
  WHERE customers.customer_id = order_totals.customer_id
  GROUP BY ALL
)
SELECT cur.segment, cur.y, cur.revenue, prev.revenue AS prev_revenue,
       round(100 * (cur.revenue - prev.revenue) / prev.revenue, 2) AS growth_pct
FROM yearly AS cur LEFT JOIN yearly AS prev ON prev.segment = cur.segment AND prev.y = cur.y - 1
ORDER BY cur.segment, cur.y
