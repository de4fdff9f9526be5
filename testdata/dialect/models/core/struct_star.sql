-- A struct column expanded into columns with .*, and unnest of a struct.
MODEL (name core.struct_star, kind FULL);

SELECT id, address.*, unnest(address.geo)
FROM @ref(raw.people)
