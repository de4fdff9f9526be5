-- SEMI JOIN.
MODEL (
  name core.customers_with_events
);

SELECT customers.segment, count(*) AS n
FROM @ref(raw.customers) SEMI JOIN @ref(raw.events) ON events.customer_id = customers.customer_id AND events.event_type = 'purchase'
GROUP BY customers.segment
ORDER BY customers.segment
