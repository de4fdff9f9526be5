MODEL (
  name hand.events_incremental,
  kind INCREMENTAL_BY_TIME_RANGE (time_column happened_at, batch_size 2)
);

SELECT event_id, customer_id, happened_at, CAST(CAST(@start AS DATE) AS TEXT) AS batch_from, CAST(CAST(@end AS TIMESTAMP) AS TEXT) AS batch_to
FROM @ref(raw.events)
WHERE happened_at >= CAST(CAST(CAST(@start AS DATE) AS TEXT) AS TIMESTAMP) AND happened_at < CAST(CAST(CAST(@end AS DATE) AS TEXT) AS TIMESTAMP)
  AND CAST(happened_at AS TEXT) >= CAST(CAST(@start AS TIMESTAMP) AS TEXT)
