-- EMBEDDED: inlined as a subquery wherever it is referenced.
MODEL (
  name core.big_orders,
  kind EMBEDDED
);

SELECT order_totals.order_id, order_totals.customer_id, order_totals.total
FROM @ref(core.order_totals)
WHERE order_totals.total > 6000
