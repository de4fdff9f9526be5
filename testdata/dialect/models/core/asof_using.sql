MODEL (name core.asof_using, kind FULL);

SELECT symbol, ts, trades.price, quotes.bid
FROM @ref(raw.trades) ASOF LEFT JOIN @ref(raw.quotes) USING (symbol, ts)
