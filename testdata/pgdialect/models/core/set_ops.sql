MODEL (name core.set_ops, kind FULL);

SELECT customer_id, 'order' AS source FROM @ref(raw.orders)
UNION
SELECT customer_id, 'event' FROM @ref(raw.events)
EXCEPT
SELECT customer_id, 'order' FROM @ref(raw.orders) WHERE status = 'cancelled'
