-- The archive as the archiver writes it: one CSV per arrival day. Delivery
-- is at-least-once, so an event may arrive more than once — the same day,
-- a day later, or (rarely) after days.
MODEL (
  name raw.events,
  kind EXTERNAL (files 'archive/*.csv', format csv, header true, union_by_name true),
  columns (event_id TEXT, occurred_at TIMESTAMP, arrived_at TIMESTAMP, archiver_offset BIGINT, metric_value TEXT),
  audits (not_null(event_id, arrived_at)),
  description 'Raw events, duplicates included',
  owner 'ingest'
);
