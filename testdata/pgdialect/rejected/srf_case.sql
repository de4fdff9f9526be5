MODEL (name bad.srf_case, kind FULL);

SELECT order_id, CASE WHEN qty > 1 THEN generate_series(1, qty) END AS unit
FROM @ref(raw.orders)
