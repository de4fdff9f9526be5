MODEL (name bad.recursive_type, kind FULL);

WITH RECURSIVE r AS (
  SELECT 1 AS n
  UNION ALL
  SELECT n + 1.5 FROM r WHERE n < 3
)
SELECT n FROM r
