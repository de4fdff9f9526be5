-- ASOF JOIN: the last quote at or before each trade.
MODEL (name core.asof_join, kind FULL);

SELECT t.trade_id, t.symbol, t.ts, q.bid, t.price - q.bid AS spread
FROM @ref(raw.trades) AS t
ASOF JOIN @ref(raw.quotes) AS q ON t.symbol = q.symbol AND t.ts >= q.ts
