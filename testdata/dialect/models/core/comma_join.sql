-- Comma joins qualified by table names.
MODEL (name core.comma_join, kind FULL);

SELECT people.id, people.name, cities.city, cities.population
FROM @ref(raw.people), @ref(raw.cities)
WHERE people.city_id = cities.city_id AND cities.population > 1000000
