-- String functions on non-ASCII text.
MODEL (
  name core.nation_strings,
  columns (nation_id INTEGER, name TEXT, shout TEXT, chars BIGINT, bytes BIGINT, plain TEXT, head TEXT, backwards TEXT, tag TEXT, masked TEXT, has_enye BOOLEAN)
);

SELECT
  nations.nation_id,
  nations.name,
  upper(nations.name) AS shout,
  length(nations.name) AS chars,
  strlen(nations.name) AS bytes,
  strip_accents(nations.name) AS plain,
  left(nations.name, 3) AS head,
  reverse(nations.name) AS backwards,
  concat_ws(' / ', nations.region, nations.currency) AS tag,
  regexp_replace(nations.name, '[aeiou]', '*', 'g') AS masked,
  nations.name ILIKE '%ñ%' AS has_enye
FROM @ref(raw.nations)
ORDER BY nations.nation_id
