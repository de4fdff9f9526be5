MODEL (name core.hostile_star, kind FULL);

SELECT * EXCLUDE ("a.b") RENAME ("say ""hi""" AS "group") FROM @ref(raw.hostile)
