MODEL (
  name raw.categories,
  kind EXTERNAL (table src.categories),
  columns (cat_id INTEGER, parent_id INTEGER, label TEXT)
);
