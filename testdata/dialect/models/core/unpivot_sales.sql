-- UNPIVOT with a static column list and the stacked names.
MODEL (name core.unpivot_sales, kind FULL);

UNPIVOT @ref(raw.sales) ON q1, q2, q3, q4 INTO NAME quarter VALUE amount
