MODEL (name core.positional_join, kind FULL);

SELECT a.id, a.name, b.city
FROM @ref(raw.people) AS a POSITIONAL JOIN @ref(raw.cities) AS b
