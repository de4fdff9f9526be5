-- Recursive unnest: nested lists and the struct inside flattened to columns.
MODEL (name core.unnest_recursive, kind FULL);

SELECT p.id, unnest([[p.id, p.city_id], [p.id * 10]], recursive := true) AS v, unnest(p.address, recursive := true)
FROM @ref(raw.people) AS p
