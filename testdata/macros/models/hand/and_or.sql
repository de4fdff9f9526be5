MODEL (name hand.and_or, kind FULL);

SELECT
  event_id,
  (kind = 'buy' OR qty > 4) AS busy,
  TRUE AS no_condition
FROM @ref(raw.events)
WHERE event_id > 1 AND customer_id <> 4 AND (weight IS NOT NULL OR qty IS NOT NULL)
