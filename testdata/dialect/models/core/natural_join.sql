MODEL (name core.natural_join, kind FULL);

SELECT *
FROM (SELECT city_id, count(*) AS people FROM @ref(raw.people) GROUP BY ALL) NATURAL JOIN @ref(raw.cities)
