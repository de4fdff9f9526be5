-- Struct fields through a ref: s.field, nested s.a.b, struct_extract, a
-- struct literal built of them.
MODEL (name core.struct_fields, kind FULL);

SELECT
  p.id,
  p.address.street,
  p.address.geo.lat AS lat,
  struct_extract(p.address, 'geo').lon AS lon,
  {'who': p.name, 'where': {'street': p.address.street, 'city_id': p.city_id}} AS card,
  (p.address).geo AS geo
FROM @ref(raw.people) AS p
