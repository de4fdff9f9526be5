MODEL (
  name raw.cities,
  kind SEED (path 'seeds/cities.csv'),
  columns (city_id INTEGER, city TEXT, country TEXT, population BIGINT)
);
