-- sqlmesh's own examples, unchanged but for @ref: put together from
-- "SQLMesh macros" (docs/concepts/macros/sqlmesh_macros.md of
-- github.com/TobikoData/sqlmesh, https://sqlmesh.readthedocs.io/en/stable/concepts/macros/sqlmesh_macros/):
-- @DEF(size, 1) and WHERE item_size > @size of "Local variables", the
-- favorite_number @EACH of "@EACH" (with column_@x), @IF(1 > 0,
-- sensitive_col) of "@IF", @STAR(foo, bar, [c], 'baz_') ... FROM foo AS
-- bar of "@STAR" and @GENERATE_SURROGATE_KEY(a, b, c) of
-- "@GENERATE_SURROGATE_KEY".
MODEL (name m.docs_tour, kind FULL);

@DEF(size, 1); -- NOTE: semi-colon at end of @DEF operator

SELECT
  @STAR(@ref(raw.foo), bar, [c], 'baz_'),
  @EACH(['4','5','6'], x -> CASE WHEN favorite_number = x THEN 1 ELSE 0 END as column_@x),
  col1,
  @IF(1 > 0, sensitive_col),
  @GENERATE_SURROGATE_KEY(a, b, c)
FROM @ref(raw.foo) AS bar
WHERE
    item_size > @size -- Reference to macro variable `@size` defined above with `@DEF()`
