-- Hostile quoted identifiers read back through a ref.
MODEL (name core.hostile_idents, kind FULL);

SELECT
  h."order id",
  h."a.b" AS "x.y",
  h."say ""hi""" + 1 AS "say ""bye""",
  h."select" AS "from",
  h."Été",
  h.camelcase AS "camelCase",
  h."日本"
FROM @ref(raw.hostile) AS h
WHERE h."select"
