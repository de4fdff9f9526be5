-- ASOF JOIN: each purchase event with the latest order placed before it.
MODEL (
  name core.asof_last_order
);

SELECT events.event_id, events.customer_id, orders.order_id, orders.order_date
FROM @ref(raw.events) ASOF JOIN @ref(raw.orders)
  ON events.customer_id = orders.customer_id AND events.occurred_at >= orders.order_date::TIMESTAMP
WHERE events.event_type = 'purchase'
