-- Named windows building on each other.
MODEL (name core.named_windows, kind FULL);

SELECT
  trades.trade_id,
  rank() OVER by_symbol AS rnk,
  sum(trades.qty) OVER (by_symbol ROWS UNBOUNDED PRECEDING) AS running_qty,
  ntile(4) OVER by_price AS quartile
FROM @ref(raw.trades)
WINDOW by_symbol AS (PARTITION BY trades.symbol ORDER BY trades.ts), by_price AS (ORDER BY trades.price, trades.trade_id)
