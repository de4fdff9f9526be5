-- error at: + 1
MODEL (name bad.literal_plus_int, kind VIEW);

SELECT c.city_id, 'a' + 1 AS x
FROM @ref(raw.cities) AS c
