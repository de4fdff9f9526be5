-- Customers, generated deterministically: ten of them never order.
MODEL (
  name raw.customers,
  grain (customer_id),
  columns (customer_id INTEGER, name TEXT, nation_id INTEGER, segment TEXT, acctbal DECIMAL(12,2), signup_date DATE, email TEXT)
);

SELECT
  i::INTEGER AS customer_id,
  'Customer#' || lpad(i::VARCHAR, 4, '0') AS name,
  (i * 7 % 12)::INTEGER AS nation_id,
  ['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD'][i % 5 + 1] AS segment,
  ((i * 7919 % 20000) / 2.0 - 1000)::DECIMAL(12,2) AS acctbal,
  DATE '2022-01-01' + (i * 37 % 900)::INTEGER AS signup_date,
  CASE WHEN i % 9 = 0 THEN NULL ELSE 'c' || i || '@example.' || (CASE WHEN i % 2 = 0 THEN 'com' ELSE 'de' END) END AS email
FROM range(1, 201) AS g(i)
