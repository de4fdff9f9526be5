-- The residual the horizon cannot catch: ids with more than one row in the
-- canonical table. Its warning puts every occurrence in the log of each
-- apply and of efmesh audit, without blocking anything.
MODEL (
  name core.event_duplicates,
  kind VIEW,
  grain (event_id),
  columns (event_id TEXT, copies BIGINT, first_arrival TIMESTAMP, last_arrival TIMESTAMP),
  audits (warn(no_rows)),
  description 'Event ids redelivered after the de-duplication horizon'
);

SELECT event_id, count(*) AS copies, min(arrived_at) AS first_arrival, max(arrived_at) AS last_arrival
FROM @ref(core.events)
GROUP BY event_id
HAVING count(*) > 1
