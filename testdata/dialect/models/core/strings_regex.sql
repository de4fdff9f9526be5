MODEL (name core.strings_regex, kind FULL);

SELECT
  p.id,
  regexp_extract(p.name, '(\d+)', 1)::INTEGER AS num,
  regexp_replace(p.name, '\s+\d+$', '') AS first,
  string_split(p.name, ' ') AS parts,
  p.name ILIKE 'z%' AS z,
  p.name SIMILAR TO '.*[0-9]' AS ends_digit,
  format('{}-{}', p.id, p.city_id) AS code,
  printf('%05d', p.id) AS padded,
  strlen(p.name) AS bytes,
  length(p.name) AS chars
FROM @ref(raw.people) AS p
