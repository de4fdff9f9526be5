MODEL (name core.latest_order, kind FULL);

-- DISTINCT ON: each customer's latest order.
SELECT DISTINCT ON (o.customer_id) o.customer_id, o.order_id, o.ordered_at, o.amount
FROM @ref(raw.orders) AS o
ORDER BY o.customer_id, o.ordered_at DESC
