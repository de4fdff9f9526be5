MODEL (
  name raw.orders,
  kind SEED (path 'seeds/orders.csv'),
  columns (order_id INTEGER, customer_id INTEGER, order_date DATE, status TEXT)
);
