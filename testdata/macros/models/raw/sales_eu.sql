MODEL (
  name raw.sales_eu,
  kind SEED (path 'seeds/sales_eu.csv'),
  columns (sale_id INTEGER, region TEXT, amount DECIMAL(10,2), vat DECIMAL(10,2), code INTEGER)
);
