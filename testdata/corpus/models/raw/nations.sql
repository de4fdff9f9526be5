MODEL (
  name raw.nations,
  kind SEED (path 'seeds/nations.csv'),
  grain (nation_id),
  columns (nation_id INTEGER, name TEXT, region TEXT, currency TEXT)
);
