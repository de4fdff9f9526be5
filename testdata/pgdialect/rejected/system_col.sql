MODEL (name bad.system_col, kind FULL);

-- A bounding box: a table cannot have columns named xmin and xmax.
SELECT customer_id, tier AS xmin, tier + 1 AS xmax
FROM @ref(raw.customers)
