-- A struct column read through the ref's implicit name.
MODEL (name core.struct_unqualified, kind VIEW);

SELECT people.id, people.address['street'] AS street, address.geo.lon AS lon
FROM @ref(raw.people)
WHERE people.address.geo.lat > 45.1
