MODEL (name mart.sku_share, kind FULL);

SELECT sku, units,
       round(100.0 * units / sum(units) OVER (), 1) AS pct,
       units::numeric(12,2) / nullif(n_orders, 0) AS per_order,
       rank() OVER (ORDER BY units DESC) AS r,
       dense_rank() OVER (ORDER BY n_orders) AS dr,
       percent_rank() OVER (ORDER BY units) AS pr,
       cume_dist() OVER (ORDER BY units) AS cd
FROM @ref(core.sku_list)
