MODEL (
  name med.stays,
  kind FULL,
  grain (stay_id),
  columns (stay_id TEXT, case_id TEXT, dept TEXT, started_at TIMESTAMP, ended_at TIMESTAMP, hours DOUBLE),
  description 'One row per stay of a case in a department',
  owner 'analytics',
  tags (med, core)
);

WITH ordered AS (
  SELECT
    m.move_id,
    m.case_id,
    m.dept,
    m.moved_at,
    lead(m.moved_at) OVER (PARTITION BY m.case_id ORDER BY m.moved_at) AS next_at
  FROM @ref(med.moves_clean) AS m
)
SELECT
  move_id AS stay_id,
  case_id,
  dept,
  moved_at AS started_at,
  next_at AS ended_at,
  date_diff('minute', moved_at, next_at) / 60.0 AS hours
FROM ordered
WHERE dept <> 'discharge'
