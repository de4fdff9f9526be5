MODEL (
  name med.moves_daily,
  kind INCREMENTAL_BY_TIME_RANGE (time_column day, batch_size 7),
  interval day,
  grain (day, dept),
  columns (day TIMESTAMP, dept TEXT, moves BIGINT, cases BIGINT),
  description 'Moves into each department per day, computed a week at a time'
);

SELECT
  date_trunc('day', moved_at)::TIMESTAMP AS day,
  dept,
  count(*) AS moves,
  count(DISTINCT case_id) AS cases
FROM @ref(med.moves_clean)
WHERE moved_at >= @start AND moved_at < @end
GROUP BY ALL
