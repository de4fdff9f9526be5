MODEL (
  name raw.customers,
  kind SEED (path 'seeds/customers.csv'),
  columns (customer_id INTEGER, first_name TEXT, last_name TEXT, city TEXT, country TEXT, signup DATE, tier INTEGER)
);
