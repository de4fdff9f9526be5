MODEL (name core.star_qualified, kind FULL);

SELECT t.* EXCLUDE (ts), c.* RENAME (city AS city_name)
FROM @ref(raw.trades) AS t, @ref(raw.cities) AS c
WHERE c.city_id = t.qty % 5 + 1
