-- @UNION 'distinct' inside a query: the row both models hold comes once;
-- the type argument in capitals.
MODEL (name m.union_distinct, kind FULL);

SELECT region, COUNT(*) AS n, SUM(amount) AS total
FROM (@UNION('DISTINCT', @ref(raw.sales_us), @ref(raw.sales_eu))) AS u
GROUP BY region
