MODEL (name core.category_tree, kind FULL);

WITH RECURSIVE tree AS (
  SELECT cat_id, label, 1 AS depth, label::text AS path
  FROM @ref(raw.categories)
  WHERE parent_id IS NULL
  UNION ALL
  SELECT c.cat_id, c.label, t.depth + 1, t.path || ' > ' || c.label
  FROM @ref(raw.categories) c
  JOIN tree t ON c.parent_id = t.cat_id
)
SELECT * FROM tree
