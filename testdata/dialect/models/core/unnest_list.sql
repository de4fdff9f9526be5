-- UNNEST in the select list and in FROM.
MODEL (name core.unnest_list, kind FULL);

SELECT p.id, unnest(p.tags) AS tag, generate_subscripts(p.tags, 1) AS pos
FROM @ref(raw.people) AS p
