MODEL (name hand.safe_divide, kind FULL);

SELECT
  event_id,
  weight / NULLIF(qty, 0) AS per_unit,
  (weight + 1) / NULLIF(qty - 2, 0) AS shifted,
  qty / NULLIF(qty, 0) * 10 AS scaled
FROM @ref(raw.events)
