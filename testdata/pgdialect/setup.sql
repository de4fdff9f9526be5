-- The source tables of the pgdialect sweep (cmd/efmesh/cli/pgdialect_test.go):
-- run as is in the efmesh database and in a plain one.
CREATE SCHEMA src;
CREATE TABLE src.customers (
  customer_id integer PRIMARY KEY,
  "Full Name" text NOT NULL,
  city varchar(40),
  country char(2),
  signup date,
  tier smallint,
  credit numeric(10,2)
);
INSERT INTO src.customers VALUES
  (1, 'Ann Müller', 'Berlin', 'DE', '2024-01-03', 1, 1500.50),
  (2, 'Bob Łukasz', 'Kraków', 'PL', '2024-01-10', 2, 250.00),
  (3, 'Chloé Dubois', 'Paris', 'FR', '2024-02-01', 1, NULL),
  (4, '山田 太郎', 'Tokyo', 'JP', '2024-02-14', 3, 9000.00),
  (5, 'Dan O''Neil', NULL, 'IE', '2024-03-01', NULL, 10.10),
  (6, 'Eve Ström', 'Malmö', 'SE', '2024-03-05', 2, 720.25);
CREATE TABLE src.orders (
  order_id integer PRIMARY KEY,
  customer_id integer,
  ordered_at timestamp,
  status text,
  amount numeric(10,2),
  qty integer,
  tags text[],
  payload jsonb
);
INSERT INTO src.orders VALUES
  (101, 1, '2024-01-05 10:00', 'paid',     120.00, 3, '{sale,web}',    '{"items": [{"sku": "A1", "n": 2}, {"sku": "B2", "n": 1}], "ship": {"city": "Berlin", "zip": "10115"}, "gift": true}'),
  (102, 1, '2024-01-20 12:30', 'shipped',   80.50, 1, '{web}',         '{"items": [{"sku": "C3", "n": 1}], "ship": {"city": "Berlin", "zip": "10117"}}'),
  (103, 2, '2024-01-21 09:15', 'paid',      15.25, 7, '{}',            '{"items": [], "ship": {"city": "Kraków"}}'),
  (104, 3, '2024-02-02 18:00', 'cancelled', 60.00, 2, '{store}',       '{"items": [{"sku": "A1", "n": 1}], "gift": false}'),
  (105, 4, '2024-02-15 08:45', 'paid',     999.99, 1, '{sale,store}',  '{"items": [{"sku": "D4", "n": 5}], "ship": {"city": "東京"}}'),
  (106, 4, '2024-02-28 23:59', 'shipped',  45.00, 4, '{web,gift}',    '{"items": [{"sku": "B2", "n": 2}, {"sku": "E5", "n": 2}]}'),
  (107, 5, '2024-03-02 07:00', 'paid',      NULL, 2, NULL,            NULL),
  (108, 6, '2024-03-06 14:20', 'paid',     310.75, 9, '{sale}',        '{"items": [{"sku": "A1", "n": 9}], "ship": {"city": "Malmö", "zip": "21120"}}'),
  (109, 2, '2024-03-10 16:00', 'refunded',  22.00, 1, '{web}',         '{"items": [{"sku": "C3", "n": 1}]}'),
  (110, 1, '2024-03-15 11:11', 'paid',      70.00, 5, '{web,sale}',    '{"items": [{"sku": "E5", "n": 5}], "ship": {"city": "Berlin"}}');
CREATE TABLE src.events (
  event_id bigint,
  customer_id integer,
  happened_at timestamptz,
  kind text,
  duration interval,
  props jsonb
);
INSERT INTO src.events VALUES
  (1, 1, '2024-01-05 09:58+00', 'visit',  '5 minutes',  '{"page": "/home", "ms": 120}'),
  (2, 1, '2024-01-05 10:01+00', 'buy',    '1 minute',   '{"page": "/cart", "ms": 80}'),
  (3, 2, '2024-01-21 09:00+01', 'visit',  '30 seconds', '{"page": "/home", "ms": 300}'),
  (4, 3, '2024-02-02 17:00+01', 'visit',  '2 hours',    '{"page": "/sale", "ms": 45}'),
  (5, 4, '2024-02-15 08:40+09', 'buy',    '10 minutes', '{"page": "/cart", "ms": 999}'),
  (6, 4, '2024-02-16 08:40+09', 'visit',  '1 minute',   '{"page": "/home"}'),
  (7, 6, '2024-03-06 14:00+01', 'visit',  '3 minutes',  '{"page": "/sale", "ms": 10}'),
  (8, 6, '2024-03-06 14:19+01', 'buy',    '20 seconds', '{"page": "/cart", "ms": 15}'),
  (9, 1, '2024-03-15 11:00+00', 'visit',  '7 minutes',  '{"page": "/home", "ms": 70}');
CREATE TABLE src.categories (cat_id integer, parent_id integer, label text);
INSERT INTO src.categories VALUES
  (1, NULL, 'All'), (2, 1, 'Food'), (3, 1, 'Tools'), (4, 2, 'Fruit'), (5, 4, 'Äpfel'), (6, 3, 'Hammers');
