-- The canonical table: one row per event id, typed, computed once.
--
-- It increments by ARRIVAL time, the only clock the archiver controls. Each
-- interval reads three days back (the horizon) and keeps the first copy of
-- every id by arrival (ties broken by the archiver's offset), then writes
-- only the copies that arrived inside the interval. A redelivery within the
-- horizon is dropped in the interval it arrives in; the original stays put.
-- A redelivery after the horizon is not: core.event_duplicates shows it.
MODEL (
  name core.events,
  kind INCREMENTAL_BY_TIME_RANGE (time_column arrived_at, batch_size 1),
  interval day,
  grain (event_id),
  columns (event_id TEXT, occurred_at TIMESTAMP, arrived_at TIMESTAMP, metric_value DOUBLE),
  audits (
    not_null(event_id),
    per_interval(unique(event_id)),   -- what the horizon guarantees: per interval, not across the table
    assert_no_gaps(arrived_at, day)   -- a day without arrivals means the archiver stalled
  ),
  description 'Canonical events: duplicates within a three-day horizon removed',
  owner 'analytics'
);

SELECT event_id, occurred_at, arrived_at, metric_value
FROM (
  SELECT
    event_id,
    occurred_at,
    arrived_at,
    CAST(metric_value AS DOUBLE) AS metric_value,
    row_number() OVER (PARTITION BY event_id ORDER BY arrived_at, archiver_offset) AS copy_rank
  FROM @ref(raw.events)
  WHERE arrived_at >= @start - INTERVAL 3 DAY AND arrived_at < @end
) AS horizon
WHERE copy_rank = 1 AND arrived_at >= @start
