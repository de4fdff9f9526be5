-- A funnel with FILTER clauses and ratios.
MODEL (
  name core.funnel
);

SELECT
  events.props.device AS device,
  count(DISTINCT events.customer_id) FILTER (WHERE events.event_type = 'view') AS viewers,
  count(DISTINCT events.customer_id) FILTER (WHERE events.event_type = 'add_to_cart') AS carters,
  count(DISTINCT events.customer_id) FILTER (WHERE events.event_type = 'purchase') AS buyers,
  round(count(*) FILTER (WHERE events.event_type = 'purchase') / count(*), 4) AS purchase_share
FROM @ref(raw.events)
GROUP BY events.props.device
ORDER BY device
