MODEL (name core.date_series, kind VIEW);

SELECT d AS day_start, d::date AS day, date_bin(interval '1 week', d, timestamptz '2024-01-01') AS week_bin,
       make_interval(days => 3) AS three_days, to_timestamp(0) AS epoch0, justify_hours(interval '30 hours') AS j
FROM generate_series(date '2024-03-01', date '2024-03-05', interval '1 day') AS d
ORDER BY d
