-- USING and NATURAL joins: the shared column once, unqualified.
MODEL (name core.using_join, kind FULL);

SELECT city_id, p.name, c.city, c.country
FROM @ref(raw.people) AS p JOIN @ref(raw.cities) AS c USING (city_id)
