MODEL (name hand.dedup_multi, kind FULL);

SELECT customer_id, CAST(happened_at AS DATE) AS day, event_id, kind
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY customer_id, CAST(happened_at AS DATE) ORDER BY happened_at DESC, event_id ASC) AS rn
  FROM @ref(raw.events)
) AS ranked
WHERE rn = 1
