-- Sessionization over event timestamps: a new session after 30 idle minutes.
MODEL (
  name core.sessions
);

WITH marked AS (
  SELECT
    events.customer_id,
    events.occurred_at,
    CASE WHEN events.occurred_at - lag(events.occurred_at) OVER (PARTITION BY events.customer_id ORDER BY events.occurred_at, events.event_id)
              > INTERVAL 30 MINUTE THEN 1 ELSE 0 END AS is_new
  FROM @ref(raw.events)
  WHERE events.customer_id <= 30
),
numbered AS (
  SELECT marked.*, sum(marked.is_new) OVER (PARTITION BY marked.customer_id ORDER BY marked.occurred_at ROWS UNBOUNDED PRECEDING) AS session_no
  FROM marked
)
SELECT customer_id, session_no, min(occurred_at) AS started, max(occurred_at) AS ended, count(*) AS events
FROM numbered
GROUP BY customer_id, session_no
ORDER BY customer_id, session_no
