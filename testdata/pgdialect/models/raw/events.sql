MODEL (
  name raw.events,
  kind EXTERNAL (table src.events),
  columns (event_id BIGINT, customer_id INTEGER, happened_at TIMESTAMPTZ, kind TEXT, duration INTERVAL, props JSONB)
);
