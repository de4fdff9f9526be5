-- @REDUCE of @EACH's conditions into one WHERE (sqlmesh's docs' example),
-- @FILTER of a list into an IN list, and @REDUCE adding names.
MODEL (name m.reduce_filter, kind FULL);

SELECT
  event_id,
  @REDUCE([qty, event_id, customer_id], (acc, x) -> acc + x) AS total
FROM @ref(raw.events)
WHERE @REDUCE(@EACH([qty, customer_id], c -> c > 0), (a, b) -> a AND b)
  AND event_id IN (@FILTER([1, 2, 3, 4, 5, 6, 7, 8], n -> n > 2 AND n <> 5))
