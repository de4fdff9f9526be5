-- WITH RECURSIVE: reachability over the edges, with the path as a list.
MODEL (name core.recursive_cte, kind FULL);

WITH RECURSIVE walk(node, path, depth) AS (
  SELECT 1, [1], 0
  UNION ALL
  SELECT e.dst, list_append(w.path, e.dst), w.depth + 1
  FROM walk AS w JOIN @ref(raw.edges) AS e ON e.src = w.node
)
SELECT node, min(depth) AS depth, arg_min(path, depth) AS path
FROM walk
GROUP BY node
ORDER BY node
