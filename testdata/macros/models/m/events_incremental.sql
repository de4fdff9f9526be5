-- An incremental model filtered by @start_ds and @end_ds (the interval's
-- bounds as 'YYYY-MM-DD' text), with @start_ts and @end_ts as columns: one
-- batch of two days at a time.
MODEL (
  name m.events_incremental,
  kind INCREMENTAL_BY_TIME_RANGE (time_column happened_at, batch_size 2)
);

SELECT event_id, customer_id, happened_at, @start_ds AS batch_from, @end_ts AS batch_to
FROM @ref(raw.events)
WHERE happened_at >= CAST(@start_ds AS TIMESTAMP) AND happened_at < CAST(@end_ds AS TIMESTAMP)
  AND CAST(happened_at AS TEXT) >= @start_ts
