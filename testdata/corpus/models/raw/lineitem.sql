MODEL (
  name raw.lineitem,
  grain (order_id, line_no),
  columns (order_id INTEGER, line_no INTEGER, product_id INTEGER, quantity INTEGER, unit_price DECIMAL(10,2), discount DECIMAL(4,2), returnflag TEXT, shipdate DATE, receiptdate DATE)
);

SELECT
  (i % 1500 + 1)::INTEGER AS order_id,
  (i // 1500 + 1)::INTEGER AS line_no,
  (i * 53 % 60 + 1)::INTEGER AS product_id,
  (i * 7 % 50 + 1)::INTEGER AS quantity,
  (5 + ((i * 53 % 60 + 1) * 131 % 9500) / 100.0)::DECIMAL(10,2) AS unit_price,
  ((i % 11) / 100.0)::DECIMAL(4,2) AS discount,
  ['N', 'R', 'A'][i % 3 + 1] AS returnflag,
  DATE '2024-01-01' + ((i % 1500 + 1) * 13 % 730)::INTEGER + (i % 20)::INTEGER AS shipdate,
  DATE '2024-01-01' + ((i % 1500 + 1) * 13 % 730)::INTEGER + (i % 20)::INTEGER + (i % 9)::INTEGER AS receiptdate
FROM range(0, 6000) AS g(i)
