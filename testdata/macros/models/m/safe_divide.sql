-- @SAFE_DIVIDE: NULL where the denominator is 0 (or NULL); operands that
-- are expressions keep their precedence.
MODEL (name m.safe_divide, kind FULL);

SELECT
  event_id,
  @SAFE_DIVIDE(weight, qty) AS per_unit,
  @SAFE_DIVIDE(weight + 1, qty - 2) AS shifted,
  @SAFE_DIVIDE(qty, qty) * 10 AS scaled
FROM @ref(raw.events)
