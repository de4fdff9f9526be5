-- Every version of a department's row since the first apply: a changed
-- seed row closes the current version (valid_to) and opens a new one.
MODEL (
  name ref.departments_history,
  kind SCD_TYPE_2 (key (dept)),
  columns (dept TEXT, name TEXT, floor INTEGER, beds INTEGER),
  description 'Departments over time, versioned on every run'
);

SELECT dept, name, floor, beds
FROM @ref(ref.departments)
