MODEL (
  name med.stays_by_dept,
  kind VIEW,
  columns (dept TEXT, department TEXT, floor INTEGER, stays BIGINT, avg_hours DOUBLE),
  description 'Stays per department with the department name'
);

SELECT s.dept, d.name AS department, d.floor, count(*) AS stays, round(avg(s.hours), 1) AS avg_hours
FROM @ref(med.stays) AS s
LEFT JOIN @ref(ref.departments) AS d ON d.dept = s.dept
GROUP BY ALL
