-- NATURAL JOIN on customer_id.
MODEL (
  name core.natural_join
);

SELECT customers.segment, count(*) AS orders
FROM @ref(raw.orders) NATURAL JOIN @ref(raw.customers)
GROUP BY customers.segment
ORDER BY customers.segment
