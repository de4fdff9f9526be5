-- TPC-H Q22: substring, an uncorrelated scalar subquery and NOT EXISTS.
MODEL (
  name core.sales_opportunity
);

SELECT cntrycode, count(*) AS numcust, sum(acctbal) AS totacctbal
FROM (
  SELECT substring(customers.email, 1, 3) AS cntrycode, customers.acctbal
  FROM @ref(raw.customers)
  WHERE customers.acctbal > (SELECT avg(customers.acctbal) FROM @ref(raw.customers) WHERE customers.acctbal > 0.00)
    AND NOT EXISTS (SELECT * FROM @ref(raw.orders) WHERE orders.customer_id = customers.customer_id)
) AS custsale
GROUP BY cntrycode
ORDER BY cntrycode NULLS LAST
