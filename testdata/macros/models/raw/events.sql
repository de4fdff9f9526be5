MODEL (
  name raw.events,
  kind SEED (path 'seeds/events.csv'),
  columns (event_id INTEGER, customer_id INTEGER, kind TEXT, happened_at TIMESTAMP, qty INTEGER, weight DECIMAL(10,2))
);
