-- error at: town_id
MODEL (name bad.join_on_unknown, kind FULL);

SELECT p.id, c.city
FROM @ref(raw.people) AS p JOIN @ref(raw.cities) AS c ON c.city_id = p.town_id
