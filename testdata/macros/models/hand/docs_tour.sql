MODEL (name hand.docs_tour, kind FULL);

SELECT
  bar.id AS baz_id, bar.a AS baz_a, bar.b AS baz_b, bar.d AS baz_d,
  bar.favorite_number AS baz_favorite_number, bar.col1 AS baz_col1, bar.col2 AS baz_col2, bar.col3 AS baz_col3,
  bar.sensitive_col AS baz_sensitive_col, bar.item_size AS baz_item_size, bar.cust_rank_1 AS baz_cust_rank_1, bar.sideA AS baz_sideA,
  bar.sideB AS baz_sideB, bar.cont_di AS baz_cont_di, bar.cont_hi AS baz_cont_hi,
  CASE WHEN favorite_number = '4' THEN 1 ELSE 0 END AS column_4,
  CASE WHEN favorite_number = '5' THEN 1 ELSE 0 END AS column_5,
  CASE WHEN favorite_number = '6' THEN 1 ELSE 0 END AS column_6,
  col1,
  sensitive_col,
  MD5(CONCAT(COALESCE(CAST(a AS TEXT), '_sqlmesh_surrogate_key_null_'), '|', COALESCE(CAST(b AS TEXT), '_sqlmesh_surrogate_key_null_'), '|', COALESCE(CAST(c AS TEXT), '_sqlmesh_surrogate_key_null_')))
FROM @ref(raw.foo) AS bar
WHERE item_size > 1
