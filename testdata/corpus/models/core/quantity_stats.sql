-- Ordered-set aggregates.
MODEL (
  name core.quantity_stats
);

SELECT
  products.category,
  median(lineitem.quantity) AS median_qty,
  quantile_cont(lineitem.quantity, 0.9) AS p90_qty,
  mode(lineitem.returnflag) AS usual_flag,
  round(stddev_samp(lineitem.quantity), 4) AS sd_qty
FROM @ref(raw.lineitem) JOIN @ref(raw.products) ON products.product_id = lineitem.product_id
GROUP BY products.category
ORDER BY products.category
