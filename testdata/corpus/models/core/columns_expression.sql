-- COLUMNS(): one aggregate over many columns.
MODEL (
  name core.columns_expression
);

SELECT max(COLUMNS('.*_id')), min(COLUMNS(c -> c LIKE '%date'))
FROM @ref(raw.orders)
