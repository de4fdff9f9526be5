MODEL (name core.list_agg, kind FULL);

SELECT
  p.city_id,
  list(p.id ORDER BY p.id) AS ids,
  array_agg(p.name ORDER BY p.name DESC)[1] AS last_name,
  string_agg(p.name, ', ' ORDER BY p.id) AS names,
  list_distinct(flatten(list(p.tags))) AS all_tags
FROM @ref(raw.people) AS p
GROUP BY p.city_id
ORDER BY p.city_id
