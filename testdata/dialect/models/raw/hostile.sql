-- Identifiers people should not write and do: spaces, dots, double quotes,
-- reserved words, non-ASCII, a case-only difference from a column name.
MODEL (name raw.hostile, kind FULL);

SELECT
  i AS "order id",
  'v' || i AS "a.b",
  i * 2 AS "say ""hi""",
  i % 2 = 0 AS "select",
  'é' || i AS "Été",
  i * 1.5 AS "CamelCase",
  '日本' || i AS "日本"
FROM range(1, 6) AS g(i)
