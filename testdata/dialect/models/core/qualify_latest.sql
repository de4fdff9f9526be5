-- QUALIFY over a window, with a named WINDOW.
MODEL (name core.qualify_latest, kind FULL);

SELECT t.symbol, t.ts, t.price, row_number() OVER w AS rn
FROM @ref(raw.trades) AS t
WINDOW w AS (PARTITION BY t.symbol ORDER BY t.ts DESC)
QUALIFY rn <= 2
