MODEL (name mart.top_per_country, kind FULL);

SELECT c.country, t.order_id, t.amount
FROM (SELECT DISTINCT country FROM @ref(raw.customers)) c
CROSS JOIN LATERAL (
  SELECT o.order_id, o.amount
  FROM @ref(raw.orders) o
  JOIN @ref(raw.customers) cc ON cc.customer_id = o.customer_id
  WHERE cc.country = c.country
  ORDER BY o.amount DESC NULLS LAST
  LIMIT 1
) t
