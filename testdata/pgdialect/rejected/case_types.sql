MODEL (name bad.case_types, kind FULL);

SELECT order_id, CASE WHEN qty > 1 THEN qty ELSE status END AS v
FROM @ref(raw.orders)
