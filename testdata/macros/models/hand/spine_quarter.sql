MODEL (name hand.spine_quarter, kind FULL);

SELECT CAST(d AS DATE) AS date_quarter FROM (VALUES ('2023-02-01'), ('2023-05-01'), ('2023-08-01'), ('2023-11-01'), ('2024-02-01')) AS v(d)
