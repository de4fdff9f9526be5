-- error at: nope
MODEL (name bad.unknown_ref_column, kind FULL);

SELECT p.id, p.nope
FROM @ref(raw.people) AS p
