-- An incremental model over an incremental model.
MODEL (
  name core.incremental_struct,
  kind INCREMENTAL_BY_TIME_RANGE (time_column day),
  start '2024-03-01'
);

SELECT date_trunc('day', e.event_at) AS day, e.user_id, list(e.kind ORDER BY e.event_at) AS kinds, {'n': count(*)} AS stats
FROM @ref(raw.events) AS e
WHERE e.event_at >= @start AND e.event_at < @end
GROUP BY ALL
