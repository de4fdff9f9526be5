-- A CTE named like a ref's table, and a CTE with a column list.
MODEL (name core.ctes_shadow, kind FULL);

WITH people(pid, pname) AS (SELECT p.id, p.name FROM @ref(raw.people) AS p WHERE p.id < 5),
  cities AS MATERIALIZED (SELECT * FROM @ref(raw.cities))
SELECT people.pid, people.pname, cities.city
FROM people, cities
WHERE cities.city_id = people.pid
