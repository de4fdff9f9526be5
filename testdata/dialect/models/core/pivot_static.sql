-- PIVOT with a static IN list: the columns are known before the data.
MODEL (name core.pivot_static, kind FULL);

PIVOT @ref(raw.sales) ON product IN ('apple', 'pear') USING sum(q1) AS q1, max(q4) AS q4 GROUP BY region
