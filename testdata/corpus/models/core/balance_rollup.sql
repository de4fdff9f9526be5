-- ROLLUP with GROUPING().
MODEL (
  name core.balance_rollup
);

SELECT
  nations.region,
  nations.name AS nation,
  grouping(nations.region, nations.name) AS lvl,
  count(DISTINCT customers.customer_id) AS customers,
  sum(customers.acctbal) AS balance
FROM @ref(raw.customers) JOIN @ref(raw.nations) ON customers.nation_id = nations.nation_id
GROUP BY ROLLUP (nations.region, nations.name)
ORDER BY lvl, nations.region NULLS LAST, nation NULLS LAST
