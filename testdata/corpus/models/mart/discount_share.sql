-- Window over an aggregate: each flag's share of the total.
MODEL (
  name mart.discount_share
);

SELECT lineitem.returnflag, sum(lineitem.quantity) AS qty,
       round(sum(lineitem.quantity) / sum(sum(lineitem.quantity)) OVER (), 4) AS share
FROM @ref(raw.lineitem)
GROUP BY lineitem.returnflag
ORDER BY lineitem.returnflag
