-- COLUMNS('regex') and COLUMNS(*) inside expressions.
MODEL (name core.columns_regex, kind FULL);

SELECT region, product, max(COLUMNS('^q[12]$')), max(COLUMNS('q3|q4')) + 1, count(COLUMNS(* EXCLUDE (region, product, q1, q2, q3, q4)))::VARCHAR
FROM @ref(raw.sales)
GROUP BY region, product
