-- PIVOT right after a ref (the implicit alias goes before it).
MODEL (
  name core.pivot_clause
);

SELECT *
FROM @ref(raw.orders) PIVOT (count(*) FOR status IN ('O', 'F', 'P') GROUP BY priority)
ORDER BY priority
