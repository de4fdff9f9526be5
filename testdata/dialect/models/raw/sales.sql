-- A wide table to UNPIVOT, with a mixed-case column.
MODEL (name raw.sales, kind FULL);

SELECT
  ['north', 'south', 'east'][i % 3 + 1] AS region,
  ['apple', 'pear'][i % 2 + 1] AS product,
  (2022 + i % 3)::INTEGER AS "Year",
  (i * 10)::INTEGER AS q1, (i * 11)::INTEGER AS q2, (i * 12 % 70)::INTEGER AS q3, (i * 5)::INTEGER AS q4
FROM range(1, 19) AS g(i)
