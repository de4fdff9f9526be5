MODEL (
  name raw.versions,
  kind SEED (path 'seeds/versions.csv'),
  columns (id INTEGER, updated_at TIMESTAMP, status TEXT, note TEXT)
);
