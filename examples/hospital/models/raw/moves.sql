-- Every move of a patient case into a department, as exported by the
-- hospital information system. "discharge" ends a case.
MODEL (
  name raw.moves,
  kind EXTERNAL (files 'data/moves.csv', format csv, header true),
  columns (move_id TEXT, case_id TEXT, dept TEXT, moved_at TIMESTAMP),
  description 'Raw patient moves (CSV export)',
  owner 'integration'
);
