MODEL (name core.big_customers, kind FULL);

WITH totals AS MATERIALIZED (
  SELECT customer_id, sum(amount) AS total FROM @ref(raw.orders) GROUP BY customer_id
), ranked AS NOT MATERIALIZED (
  SELECT customer_id, total, ntile(2) OVER (ORDER BY total DESC NULLS LAST) AS half FROM totals
)
SELECT r.customer_id, r.total, r.half FROM ranked r WHERE r.half = 1
