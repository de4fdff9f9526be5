MODEL (
  name raw.customers,
  kind EXTERNAL (table src.customers),
  columns (customer_id INTEGER, "Full Name" TEXT, city VARCHAR(40), country CHAR(2), signup DATE, tier SMALLINT, credit NUMERIC(10,2))
);
