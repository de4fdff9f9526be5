-- error at: frobnicate
MODEL (name bad.unknown_function, kind FULL);

SELECT c.city_id, frobnicate(c.city) AS f
FROM @ref(raw.cities) AS c
