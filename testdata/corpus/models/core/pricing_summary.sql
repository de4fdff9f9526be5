-- TPC-H Q1: one table, unaliased, every column qualified by its table name.
MODEL (
  name core.pricing_summary,
  columns (returnflag TEXT, count_order BIGINT, sum_qty HUGEINT, sum_base_price DECIMAL(38,2), sum_disc_price DECIMAL(38,4), avg_qty DOUBLE, avg_disc DOUBLE)
);

SELECT
  lineitem.returnflag,
  count(*) AS count_order,
  sum(lineitem.quantity) AS sum_qty,
  sum(lineitem.unit_price * lineitem.quantity) AS sum_base_price,
  sum(lineitem.unit_price * lineitem.quantity * (1 - lineitem.discount)) AS sum_disc_price,
  avg(lineitem.quantity) AS avg_qty,
  avg(lineitem.discount) AS avg_disc
FROM @ref(raw.lineitem)
WHERE lineitem.shipdate <= DATE '2025-09-01' - INTERVAL 90 DAY
GROUP BY lineitem.returnflag
ORDER BY lineitem.returnflag
