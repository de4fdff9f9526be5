-- Declared columns of nested and unusual types: the contract holds, each
-- column is stored as declared, and the plan after apply is a no-op.
MODEL (
  name core.contract_nested,
  kind FULL,
  grain (id),
  columns (
    id INTEGER,
    address STRUCT(street TEXT, geo STRUCT(lat DOUBLE, lon DOUBLE)),
    tags TEXT[],
    scores MAP(TEXT, INTEGER),
    pair INTEGER[2],
    mood ENUM('sad', 'ok', 'happy'),
    payload JSON,
    amount DECIMAL(38, 10),
    big HUGEINT,
    at_ns TIMESTAMP_NS,
    at_tz TIMESTAMPTZ,
    u UNION(num INTEGER, str TEXT),
    "Mixed Case" VARCHAR
  )
);

SELECT
  p.id,
  p.address,
  p.tags,
  p.scores,
  [p.id, p.city_id]::INTEGER[2] AS pair,
  ['sad', 'ok', 'happy'][p.id % 3 + 1]::ENUM('sad', 'ok', 'happy') AS mood,
  to_json(p.address) AS payload,
  p.id / 3 AS amount,
  p.id::HUGEINT * 1000000000000000000 AS big,
  TIMESTAMP_NS '2024-03-01 12:00:00.123456789' AS at_ns,
  TIMESTAMPTZ '2024-03-01 12:00:00+02' AS at_tz,
  CASE WHEN p.id % 2 = 0 THEN p.id::UNION(num INTEGER, str VARCHAR) ELSE p.name::UNION(num INTEGER, str VARCHAR) END AS u,
  p.name AS "Mixed Case"
FROM @ref(raw.people) AS p
