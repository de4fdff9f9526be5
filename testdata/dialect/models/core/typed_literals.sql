-- Typed literals and casts to less common types.
MODEL (name core.typed_literals, kind FULL);

SELECT
  c.city_id,
  INTERVAL 3 DAY + INTERVAL '2 hours' AS gap,
  DATE '2024-02-29' + c.city_id AS day,
  TIMESTAMPTZ '2024-03-01 12:00:00+00' AS at_tz,
  CAST(c.population AS DECIMAL(38, 10)) / 7 AS share,
  CAST(c.population AS HUGEINT) * 1000000000000 AS huge,
  CAST('12345678-1234-5678-1234-567812345678' AS UUID) AS uid,
  '\xAA\xBB'::BLOB AS bytes,
  CAST(c.country AS ENUM('Deutschland', 'Brasil', '日本', 'Canada', 'Schweiz')) AS land,
  1::TINYINT + 1::UTINYINT AS small,
  TIME '12:34:56' AS noon,
  0.1::FLOAT AS f,
  123.45 AS dec_literal,
  [DATE '2024-01-01'] AS dates,
  c.population::BIT AS bits
FROM @ref(raw.cities) AS c
