-- Nested types: a list, a struct holding a struct, a map.
MODEL (name raw.people, kind FULL);

SELECT
  i::INTEGER AS id,
  ['Zoë', 'José', '日本太郎', 'Ann', 'Łukasz', 'Mia'][i % 6 + 1] || ' ' || i AS name,
  (i % 5 + 1)::INTEGER AS city_id,
  DATE '1980-01-01' + (i * 97 % 9000)::INTEGER AS born,
  list_slice(['admin', 'beta', 'vip', 'églantine'], 1 + i % 2, 1 + i % 4) AS tags,
  {'street': 'Rue ' || i, 'geo': {'lat': 45.0 + i / 100, 'lon': -73.5 + i / 200}} AS address,
  MAP {'math': (i * 7 % 100)::INTEGER, 'art': (i * 13 % 100)::INTEGER} AS scores
FROM range(1, 41) AS g(i)
