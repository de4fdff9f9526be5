MODEL (name core.status_counts, kind FULL);

SELECT customer_id,
       count(*) FILTER (WHERE status = 'paid') AS paid,
       sum(amount) FILTER (WHERE status <> 'cancelled') AS kept,
       avg(qty) FILTER (WHERE qty > 1) AS avg_qty,
       bool_or(status = 'refunded') AS any_refund
FROM @ref(raw.orders)
GROUP BY customer_id
