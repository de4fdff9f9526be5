MODEL (name hand.spine_month, kind FULL);

SELECT CAST(d AS DATE) AS date_month FROM (VALUES ('2024-01-15'), ('2024-02-15'), ('2024-03-15'), ('2024-04-15'), ('2024-05-15')) AS v(d)
