-- @DEDUPLICATE in a FROM, positionally, partitioned by a column and an
-- expression, ordered by two strings: each customer's last event of a day.
MODEL (name m.dedup_multi, kind FULL);

SELECT customer_id, CAST(happened_at AS DATE) AS day, event_id, kind
FROM (@DEDUPLICATE(@ref(raw.events), [customer_id, CAST(happened_at AS DATE)], ['happened_at DESC', 'event_id ASC'])) AS last_events
