-- FROM-first, with and without SELECT.
MODEL (name core.from_first, kind FULL);

FROM @ref(raw.cities) AS c
SELECT c.city, c.population // 1000 AS thousands
WHERE c.country <> 'Schweiz'
