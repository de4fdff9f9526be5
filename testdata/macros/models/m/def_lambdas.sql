-- @DEF of lambdas of one and two parameters, one calling the other, the
-- parameters read bare and as @x; an operand that is an expression stays
-- one.
MODEL (name m.def_lambdas, kind FULL);

@DEF(square, x -> x * x);
@DEF(weighted, (q, w) -> @square(q) + COALESCE(w, 0) * 10);
@DEF(ratio, (a, b) -> CAST(@a AS DECIMAL(10, 2)) / (@b + 1));

SELECT
  event_id,
  @square(qty + 1) AS sq,
  @weighted(qty, weight) AS w,
  @ratio(qty, event_id) AS r
FROM @ref(raw.events)
