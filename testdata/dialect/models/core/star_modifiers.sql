-- SELECT * EXCLUDE / REPLACE / RENAME.
MODEL (name core.star_modifiers, kind FULL);

SELECT * EXCLUDE (scores, address) REPLACE (upper(name) AS name) RENAME (born AS birthday)
FROM @ref(raw.people)
