MODEL (
  name raw.sales_us,
  kind SEED (path 'seeds/sales_us.csv'),
  columns (sale_id INTEGER, amount DECIMAL(10,2), region TEXT, state TEXT, code TEXT)
);
