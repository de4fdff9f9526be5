MODEL (
  name core.events_typed_inc,
  kind INCREMENTAL_BY_TIME_RANGE (time_column happened_at, batch_size 1000),
  start '2024-01-01'
);

-- The incremental table is created from the inferred types: a bpchar, a
-- bit string, "char", arrays, numeric without precision, jsonb, interval.
SELECT e.happened_at,
       e.event_id,
       CASE WHEN e.kind = 'buy' THEN 'B'::char(1) ELSE 'VISIT'::char(5) END AS kind_code,
       B'101' AS flags,
       'x'::"char" AS one_byte,
       ARRAY[e.event_id, e.customer_id] AS ids,
       e.event_id / 3.0 AS third,
       e.props,
       e.duration * 2 AS twice,
       e.happened_at::date AS day
FROM @ref(raw.events) e
WHERE e.happened_at >= @start AND e.happened_at < @end
