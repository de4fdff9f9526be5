-- error at: + 1
MODEL (name bad.string_plus_int, kind FULL);

SELECT c.city_id, c.city + 1 AS x
FROM @ref(raw.cities) AS c
