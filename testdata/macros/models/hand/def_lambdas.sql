MODEL (name hand.def_lambdas, kind FULL);

SELECT
  event_id,
  (qty + 1) * (qty + 1) AS sq,
  qty * qty + COALESCE(weight, 0) * 10 AS w,
  CAST(qty AS DECIMAL(10, 2)) / (event_id + 1) AS r
FROM @ref(raw.events)
