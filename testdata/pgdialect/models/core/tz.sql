MODEL (name core.tz, kind FULL);

SELECT event_id,
       happened_at AT TIME ZONE 'Europe/Berlin' AS berlin_local,
       (happened_at AT TIME ZONE 'UTC')::date AS utc_day,
       timestamp '2024-01-01 00:00' AT TIME ZONE 'UTC' AS new_year_utc,
       date_trunc('hour', happened_at) AS hour
FROM @ref(raw.events)
