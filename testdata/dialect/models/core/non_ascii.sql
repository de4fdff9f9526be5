-- Non-ASCII identifiers and values.
MODEL (name core.non_ascii, kind FULL);

SELECT
  c.city AS "città",
  c.country AS país,
  c.population AS 人口,
  'naïve café — 日本' AS "Überschrift",
  upper(c.city) AS "ÉTÉ"
FROM @ref(raw.cities) AS c
