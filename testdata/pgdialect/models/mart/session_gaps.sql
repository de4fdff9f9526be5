MODEL (name mart.session_gaps, kind FULL);

SELECT event_id, customer_id, happened_at,
       happened_at - lag(happened_at) OVER (PARTITION BY customer_id ORDER BY happened_at) AS gap,
       happened_at + duration AS ended_at,
       sum(duration) OVER (PARTITION BY customer_id) AS total_time,
       extract(epoch FROM duration) AS secs
FROM @ref(core.events_inc)
