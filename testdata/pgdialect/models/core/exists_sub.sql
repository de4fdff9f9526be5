MODEL (name core.exists_sub, kind FULL);

SELECT c.customer_id,
       EXISTS (SELECT 1 FROM @ref(raw.orders) o WHERE o.customer_id = c.customer_id AND o.status = 'refunded') AS refunded,
       (SELECT max(o.amount) FROM @ref(raw.orders) o WHERE o.customer_id = c.customer_id) AS max_amount,
       c.customer_id IN (SELECT e.customer_id FROM @ref(raw.events) e WHERE e.kind = 'buy') AS bought_online,
       ARRAY(SELECT o.order_id FROM @ref(raw.orders) o WHERE o.customer_id = c.customer_id ORDER BY 1) AS ids
FROM @ref(raw.customers) c
