-- error at: SELECT
MODEL (name bad.map_wrong_key, kind FULL);

SELECT p.id, p.scores[DATE '2024-01-01'] AS m
FROM @ref(raw.people) AS p
