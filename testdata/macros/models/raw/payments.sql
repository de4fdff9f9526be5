MODEL (
  name raw.payments,
  kind SEED (path 'seeds/payments.csv'),
  columns (payment_id INTEGER, order_id INTEGER, payment_method TEXT, amount INTEGER)
);
