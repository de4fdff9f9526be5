-- error at: first
MODEL (name bad.field_of_scalar, kind FULL);

SELECT people.id, people.name.first AS first
FROM @ref(raw.people)
