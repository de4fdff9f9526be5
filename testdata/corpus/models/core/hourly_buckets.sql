-- time_bucket and date_part over timestamps.
MODEL (
  name core.hourly_buckets,
  kind VIEW
);

SELECT time_bucket(INTERVAL 6 HOUR, events.occurred_at) AS bucket, date_part('hour', min(events.occurred_at)) AS first_hour, count(*) AS n
FROM @ref(raw.events)
GROUP BY bucket
ORDER BY bucket
