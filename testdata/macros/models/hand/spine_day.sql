MODEL (name hand.spine_day, kind FULL);

SELECT CAST(d AS DATE) AS date_day FROM (VALUES ('2024-02-27'), ('2024-02-28'), ('2024-02-29'), ('2024-03-01'), ('2024-03-02')) AS v(d)
