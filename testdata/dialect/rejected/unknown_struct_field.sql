-- error at: alt
MODEL (name bad.unknown_struct_field, kind FULL);

SELECT p.id, p.address.geo.alt AS alt
FROM @ref(raw.people) AS p
