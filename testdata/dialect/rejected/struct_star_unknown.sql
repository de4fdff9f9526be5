-- error at: x
MODEL (name bad.struct_star_unknown, kind FULL);

SELECT p.id, p.tags.x
FROM @ref(raw.people) AS p
