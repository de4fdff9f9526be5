-- A column named like another case-insensitively, through a subquery.
MODEL (name core.case_collide, kind FULL);

SELECT s."Year" AS yr, s.year + 1 AS next_year, "YEAR" * 0 AS z
FROM @ref(raw.sales) AS s
