MODEL (
  name ref.departments,
  kind SEED (path 'seeds/departments.csv'),
  grain (dept),
  columns (dept TEXT, name TEXT, floor INTEGER, beds INTEGER),
  description 'Departments with their floor and bed count'
);
