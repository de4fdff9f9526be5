-- error at: ASOF
MODEL (name bad.asof_no_inequality, kind FULL);

SELECT t.trade_id, q.bid
FROM @ref(raw.trades) AS t ASOF JOIN @ref(raw.quotes) AS q ON t.symbol = q.symbol
