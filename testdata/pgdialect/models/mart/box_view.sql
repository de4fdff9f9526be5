MODEL (name mart.box_view, kind VIEW);

-- A view may have columns named as a table's system columns.
SELECT customer_id, tier AS xmin, tier + 1 AS xmax
FROM @ref(raw.customers)
