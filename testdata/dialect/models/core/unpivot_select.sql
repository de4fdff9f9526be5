-- UNPIVOT inside a SELECT, on COLUMNS(…).
MODEL (name core.unpivot_select, kind FULL);

SELECT region, quarter, sum(amount) AS amount
FROM (UNPIVOT @ref(raw.sales) ON COLUMNS('^q[0-9]$') INTO NAME quarter VALUE amount) AS u
GROUP BY ALL
ORDER BY ALL
