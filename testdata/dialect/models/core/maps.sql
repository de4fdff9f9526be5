-- Maps: element access, keys, values, map_from_entries, cardinality.
MODEL (name core.maps, kind FULL);

SELECT
  p.id,
  p.scores['math'] AS math,
  element_at(p.scores, 'art')[1] AS art,
  map_keys(p.scores) AS subjects,
  map_values(p.scores) AS marks,
  cardinality(p.scores) AS n,
  map_from_entries([('id', p.id), ('city', p.city_id)]) AS ids,
  map_entries(p.scores)[1].key AS first_key
FROM @ref(raw.people) AS p
