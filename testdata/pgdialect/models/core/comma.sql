MODEL (name core.comma, kind FULL);

-- Comma joins qualified by the tables' own names.
SELECT customers.customer_id, orders.order_id, events.kind
FROM @ref(raw.customers), @ref(raw.orders), @ref(raw.events)
WHERE customers.customer_id = orders.customer_id
  AND events.customer_id = customers.customer_id
  AND events.happened_at::date = orders.ordered_at::date
