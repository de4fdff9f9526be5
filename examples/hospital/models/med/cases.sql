-- One row per case with where it is now; a run upserts cases by id.
MODEL (
  name med.cases,
  kind INCREMENTAL_BY_UNIQUE_KEY (key (case_id)),
  grain (case_id),
  columns (case_id TEXT, dept TEXT, since TIMESTAMP, moves BIGINT),
  description 'The latest department of every case'
);

SELECT
  case_id,
  arg_max(dept, moved_at) AS dept,
  max(moved_at) AS since,
  count(*) AS moves
FROM @ref(med.moves_clean)
GROUP BY case_id
