MODEL (
  name raw.orders,
  kind EXTERNAL (table src.orders),
  columns (order_id INTEGER, customer_id INTEGER, ordered_at TIMESTAMP, status TEXT, amount NUMERIC(10,2), qty INTEGER, tags TEXT[], payload JSONB)
);
