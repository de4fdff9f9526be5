-- @EACH over names: the item as a column, spliced into a name with @{x},
-- and at the end of a name as sqlmesh writes it (qty_@x).
MODEL (name m.each_columns, kind FULL);

SELECT
  event_id,
  @EACH([qty, weight], c -> COALESCE(c, 0) AS @{c}_or_zero),
  @EACH([1, 2, 3], n -> qty * n AS qty_@n),
  @EACH(['visit', 'buy'], k -> CASE WHEN kind = k THEN 1 ELSE 0 END AS is_@k)
FROM @ref(raw.events)
