-- error at: nodes
MODEL (name bad.recursive_cte_unknown, kind FULL);

WITH RECURSIVE walk(node) AS (
  SELECT 1
  UNION ALL
  SELECT e.dst FROM walk AS w JOIN @ref(raw.edges) AS e ON e.src = w.nodes
)
SELECT node FROM walk
