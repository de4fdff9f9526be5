-- TPC-DS style: customers above their nation's average, correlated.
MODEL (
  name mart.above_nation_average
);

SELECT customers.customer_id, customers.nation_id, customers.acctbal
FROM @ref(raw.customers)
WHERE customers.acctbal > 1.2 * (
  SELECT avg(c2.acctbal) FROM @ref(raw.customers) AS c2 WHERE c2.nation_id = customers.nation_id
)
ORDER BY customers.nation_id, customers.customer_id
