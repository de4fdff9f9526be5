-- VALUES with a struct and a list, joined to a ref.
MODEL (name core.values_lists, kind FULL);

SELECT v.code, v.meta.label, v.ids, c.city
FROM (VALUES ('a', {'label': 'eins'}, [1, 2]), ('b', {'label': 'zwei'}, [3])) AS v(code, meta, ids)
JOIN @ref(raw.cities) AS c ON list_contains(v.ids, c.city_id)
