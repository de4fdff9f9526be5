MODEL (name bad.record_col, kind FULL);

-- A row value: fine in a query, no column of a table can hold it.
SELECT customer_id, row(customer_id, city) AS pair
FROM @ref(raw.customers)
