-- sqlmesh's own examples, unchanged but for @ref: the macro functions of
-- "Macro functions" (rank_to_int, pythag, and area nested in
-- container_volume) and the @REDUCE of @EACH's conditions of "@REDUCE", in
-- "SQLMesh macros" (docs/concepts/macros/sqlmesh_macros.md of
-- github.com/TobikoData/sqlmesh).
MODEL (name m.docs_lambdas, kind FULL);

@DEF(
  rank_to_int,
  x -> case when left(x, 1) = 'A' then 1 when left(x, 1) = 'B' then 2 when left(x, 1) = 'C' then 3 end
);
@DEF(pythag, (x,y) -> sqrt(pow(x, 2) + pow(y, 2)));
@DEF(area, r -> pi() * r * r);
@DEF(container_volume, (r, h) -> @area(@r) * h);

SELECT
  id,
  cust_rank_1,
  @rank_to_int(cust_rank_1) as cust_rank_1_int,
  sideA,
  sideB,
  @pythag(sideA, sideB) AS sideC,
  @container_volume((cont_di / 2), cont_hi) AS volume
FROM
  @ref(raw.foo)
WHERE
  @REDUCE(
    @EACH([col1, col2, col3], x -> x = 1), -- Builds each individual predicate `col1 = 1`
    (x, y) -> x AND y -- Combines individual predicates with `AND`
  )
