MODEL (
  name raw.orders,
  grain (order_id),
  columns (order_id INTEGER, customer_id INTEGER, order_date DATE, status TEXT, priority TEXT, shipping_cost DECIMAL(8,2), comment TEXT)
);

SELECT
  i::INTEGER AS order_id,
  (i * 37 % 190 + 1)::INTEGER AS customer_id,
  DATE '2024-01-01' + (i * 13 % 730)::INTEGER AS order_date,
  ['O', 'F', 'P'][i % 3 + 1] AS status,
  ['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'][i * 3 % 5 + 1] AS priority,
  ((i * 17 % 3000) / 100.0)::DECIMAL(8,2) AS shipping_cost,
  CASE i % 4 WHEN 0 THEN 'livraison rapide — merci' WHEN 1 THEN 'special requests: gift wrap' WHEN 2 THEN NULL ELSE 'Grüße aus Köln' END AS comment
FROM range(1, 1501) AS g(i)
