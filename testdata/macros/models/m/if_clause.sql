-- @IF as a whole clause, its condition read from vars (efmesh.yaml): a
-- WHERE that is there (region is eu) and a HAVING that is not (min_tier is
-- 2, not above 5).
MODEL (name m.if_clause, kind FULL);

SELECT country, COUNT(*) AS n, MIN(tier) AS min_tier
FROM @ref(raw.customers)
@IF(@var(region) = 'eu', WHERE country IN ('DE', 'PL', 'FR', 'SE', 'IE'))
GROUP BY country
@IF(@var(min_tier) > 5, HAVING MIN(tier) > 5)
