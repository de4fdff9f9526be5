MODEL (name hand.each_columns, kind FULL);

SELECT
  event_id,
  COALESCE(qty, 0) AS qty_or_zero,
  COALESCE(weight, 0) AS weight_or_zero,
  qty * 1 AS qty_1,
  qty * 2 AS qty_2,
  qty * 3 AS qty_3,
  CASE WHEN kind = 'visit' THEN 1 ELSE 0 END AS is_visit,
  CASE WHEN kind = 'buy' THEN 1 ELSE 0 END AS is_buy
FROM @ref(raw.events)
