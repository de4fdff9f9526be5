MODEL (
  name mart.daily_census,
  kind FULL,
  grain (day, dept),
  columns (day DATE, dept TEXT, patients BIGINT, occupancy DOUBLE),
  description 'Patients present per department and day, and bed occupancy'
);

SELECT
  d.day::DATE AS day,
  s.dept,
  count(DISTINCT s.case_id) AS patients,
  round(count(DISTINCT s.case_id) / any_value(dep.beds), 2) AS occupancy
FROM @ref(med.stays) AS s
JOIN @ref(ref.departments) AS dep ON dep.dept = s.dept
CROSS JOIN generate_series(@start::DATE, @end::DATE - INTERVAL 1 DAY, INTERVAL 1 DAY) AS d(day)
WHERE s.started_at < d.day + INTERVAL 1 DAY
  AND coalesce(s.ended_at, @end) > d.day
GROUP BY ALL
