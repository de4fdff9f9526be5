MODEL (name hand.if_clause, kind FULL);

SELECT country, COUNT(*) AS n, MIN(tier) AS min_tier
FROM @ref(raw.customers)
WHERE country IN ('DE', 'PL', 'FR', 'SE', 'IE')
GROUP BY country
