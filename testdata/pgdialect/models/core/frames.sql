MODEL (name core.frames, kind FULL);

SELECT order_id, customer_id, qty,
       sum(qty) OVER (PARTITION BY customer_id ORDER BY qty GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) AS neighbours,
       count(*) FILTER (WHERE status = 'paid') OVER (PARTITION BY customer_id) AS paid_in_customer,
       nth_value(order_id, 2) OVER (PARTITION BY customer_id ORDER BY order_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS second,
       last_value(amount) OVER (ORDER BY order_id ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) AS ahead
FROM @ref(raw.orders)
