-- UNION BY NAME: columns matched by name, missing ones NULL.
MODEL (name core.union_by_name, kind FULL);

SELECT symbol, price AS value, 'trade' AS src FROM @ref(raw.trades)
UNION ALL BY NAME
SELECT 'quote' AS src, bid AS value, symbol, ts FROM @ref(raw.quotes)
