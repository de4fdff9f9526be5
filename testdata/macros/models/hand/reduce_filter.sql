MODEL (name hand.reduce_filter, kind FULL);

SELECT
  event_id,
  (qty + event_id) + customer_id AS total
FROM @ref(raw.events)
WHERE (qty > 0) AND (customer_id > 0)
  AND event_id IN (3, 4, 6, 7, 8)
