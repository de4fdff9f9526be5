MODEL (name core.unnest_from, kind FULL);

SELECT p.id, t.tag
FROM @ref(raw.people) AS p, unnest(p.tags) AS t(tag)
WHERE t.tag <> 'beta'
