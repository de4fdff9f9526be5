-- The columns the examples of sqlmesh's macro docs read (m.docs_tour,
-- m.docs_lambdas): foo of the @STAR example (a, b, c text; d an integer)
-- and the rest each example names.
MODEL (name raw.foo, kind FULL);

SELECT
  CAST(id AS INTEGER) AS id, CAST(a AS TEXT) AS a, CAST(b AS TEXT) AS b, CAST(c AS TEXT) AS c, CAST(d AS INTEGER) AS d,
  CAST(favorite_number AS INTEGER) AS favorite_number, CAST(col1 AS INTEGER) AS col1, CAST(col2 AS INTEGER) AS col2,
  CAST(col3 AS INTEGER) AS col3, CAST(sensitive_col AS TEXT) AS sensitive_col, CAST(item_size AS INTEGER) AS item_size,
  CAST(cust_rank_1 AS TEXT) AS cust_rank_1, CAST(sideA AS DOUBLE PRECISION) AS sideA, CAST(sideB AS DOUBLE PRECISION) AS sideB,
  CAST(cont_di AS DOUBLE PRECISION) AS cont_di, CAST(cont_hi AS DOUBLE PRECISION) AS cont_hi
FROM (VALUES
  (1, 'a1', 'b1', 'c1', 10, 4, 1, 1, 1, 'secret', 2, 'Alpha', 3, 4, 2, 10),
  (2, 'a2', NULL, 'c2', 20, 5, 1, 1, 1, 'geheim', 3, 'Beta', 5, 12, 4, 1),
  (3, 'a3', 'b3', NULL, NULL, 6, 1, 0, 1, '秘密', 1, 'Charlie', 8, 15, 1, 1),
  (4, 'ä4', 'b4', 'c4', 40, 7, 1, 1, 1, NULL, 5, 'Delta', 1, 1, 0, 3)
) AS v(id, a, b, c, d, favorite_number, col1, col2, col3, sensitive_col, item_size, cust_rank_1, sideA, sideB, cont_di, cont_hi)
