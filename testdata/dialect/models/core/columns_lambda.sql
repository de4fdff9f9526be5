-- COLUMNS with a lambda over the names.
MODEL (name core.columns_lambda, kind FULL);

SELECT COLUMNS(c -> c LIKE 'q%') * 2 FROM @ref(raw.sales)
