-- A derived table without an alias.
MODEL (
  name core.unaliased_subquery
);

SELECT count(*) AS n, sum(qty) AS qty
FROM (SELECT lineitem.order_id, sum(lineitem.quantity) AS qty FROM @ref(raw.lineitem) GROUP BY lineitem.order_id)
WHERE qty > 100
