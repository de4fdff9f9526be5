MODEL (name core.seed_read, kind VIEW);

SELECT c.country, c.city, c.population::DOUBLE / sum(c.population) OVER () AS share
FROM @ref(raw.cities) AS c
