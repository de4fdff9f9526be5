MODEL (
  name core.events_inc,
  kind INCREMENTAL_BY_TIME_RANGE (time_column happened_at, batch_size 1000),
  start '2024-01-01'
);

SELECT e.event_id, e.customer_id, e.happened_at, e.kind, e.duration,
       e.props ->> 'page' AS page,
       (e.props ->> 'ms')::int AS ms
FROM @ref(raw.events) e
WHERE e.happened_at >= @start AND e.happened_at < @end
