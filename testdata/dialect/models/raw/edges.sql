MODEL (name raw.edges, kind VIEW);

SELECT * FROM (VALUES (1, 2), (1, 3), (2, 4), (3, 4), (4, 5), (5, 6), (7, 8)) AS e(src, dst)
