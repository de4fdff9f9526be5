MODEL (name bad.missing_window, kind FULL);

SELECT order_id, rank() OVER w AS r
FROM @ref(raw.orders)
WINDOW v AS (ORDER BY amount)
