-- error at: 'first'
MODEL (name bad.string_subscript, kind FULL);

WITH named AS (SELECT p.id, p.name FROM @ref(raw.people) AS p)
SELECT n.id, n.name['first'] AS first
FROM named AS n
