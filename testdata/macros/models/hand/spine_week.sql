MODEL (name hand.spine_week, kind FULL);

SELECT date_week, EXTRACT(DOW FROM date_week) AS dow FROM (SELECT CAST(d AS DATE) AS date_week FROM (VALUES ('2024-01-01'), ('2024-01-08'), ('2024-01-15'), ('2024-01-22'), ('2024-01-29')) AS v(d)) AS s
