MODEL (name bad.unknown_model_col, kind FULL);

SELECT l.customer_id, l.total_amount
FROM @ref(core.latest_order) l
