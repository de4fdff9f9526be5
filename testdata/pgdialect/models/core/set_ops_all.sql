MODEL (name core.set_ops_all, kind FULL);

(SELECT customer_id, status FROM @ref(raw.orders) INTERSECT ALL SELECT customer_id, status FROM @ref(raw.orders) WHERE qty > 1)
EXCEPT ALL
SELECT customer_id, 'refunded' FROM @ref(raw.customers)
