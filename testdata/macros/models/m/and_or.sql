-- @AND and @OR: conditions joined, the NULL of an @IF without else
-- dropped, an empty one a no-op (TRUE, as sqlmesh's).
MODEL (name m.and_or, kind FULL);

SELECT
  event_id,
  @OR(kind = 'buy', qty > 4, @IF(@var(region) = 'us', kind = 'visit')) AS busy,
  @OR(@IF(@var(region) = 'us', qty > 100)) AS no_condition
FROM @ref(raw.events)
WHERE @AND(event_id > 1, @IF(@var(region) = 'eu', customer_id <> 4), NULL, weight IS NOT NULL OR qty IS NOT NULL)
