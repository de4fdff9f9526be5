-- TPC-H Q13: LEFT OUTER JOIN in a derived table.
MODEL (
  name core.customer_distribution
);

SELECT c_count, count(*) AS custdist
FROM (
  SELECT customers.customer_id, count(orders.order_id) AS c_count
  FROM @ref(raw.customers) LEFT OUTER JOIN @ref(raw.orders)
    ON customers.customer_id = orders.customer_id
   AND orders.comment NOT LIKE '%special%requests%'
  GROUP BY customers.customer_id
) AS c_orders
GROUP BY c_count
ORDER BY custdist DESC, c_count DESC
