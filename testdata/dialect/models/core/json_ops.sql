MODEL (name core.json_ops, kind FULL);

SELECT
  p.id,
  to_json(p.address) AS doc,
  json_extract_string(to_json(p.address), '$.geo.lat') AS lat_text,
  to_json(p.address)->>'street' AS street,
  json_array_length(to_json(p.tags)) AS n
FROM @ref(raw.people) AS p
