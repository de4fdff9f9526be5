MODEL (name core.filter_agg, kind FULL);

SELECT
  t.symbol,
  count(*) FILTER (WHERE t.qty > 25) AS big,
  sum(t.qty) FILTER (t.price > 105) AS pricey_qty,
  arg_max(t.trade_id, t.price) AS top_trade,
  quantile_cont(t.price, 0.5) AS median,
  bool_and(t.qty > 0) AS all_positive,
  histogram(t.qty % 3) AS hist,
  mode(t.qty % 4) AS modal
FROM @ref(raw.trades) AS t
GROUP BY t.symbol
