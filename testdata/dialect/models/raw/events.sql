-- Incremental by day over @start/@end.
MODEL (
  name raw.events,
  kind INCREMENTAL_BY_TIME_RANGE (time_column event_at, batch_size 30),
  start '2024-03-01'
);

SELECT
  event_at,
  (epoch(event_at)::BIGINT // 3600 % 7)::INTEGER AS user_id,
  ['view', 'click', 'buy'][(epoch(event_at)::BIGINT // 3600 % 3)::INTEGER + 1] AS kind,
  {'ua': 'firefox', 'ms': (epoch(event_at)::BIGINT % 1000)::INTEGER} AS meta
FROM generate_series(@start, @end - INTERVAL 1 HOUR, INTERVAL 5 HOUR) AS g(event_at)
WHERE event_at >= @start AND event_at < @end
