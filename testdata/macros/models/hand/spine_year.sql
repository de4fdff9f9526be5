MODEL (name hand.spine_year, kind FULL);

SELECT CAST(d AS DATE) AS date_year FROM (VALUES ('2020-06-30'), ('2021-06-30'), ('2022-06-30'), ('2023-06-30')) AS v(d)
