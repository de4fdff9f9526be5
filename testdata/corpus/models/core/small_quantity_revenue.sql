-- TPC-H Q17: the inner lineitem shadows the outer one.
MODEL (
  name core.small_quantity_revenue
);

SELECT round(sum(lineitem.unit_price * lineitem.quantity) / 7.0, 2) AS avg_yearly
FROM @ref(raw.lineitem), @ref(raw.products)
WHERE products.product_id = lineitem.product_id
  AND products.brand = 'Brand#2'
  AND lineitem.quantity < (
    SELECT 0.5 * avg(lineitem.quantity)
    FROM @ref(raw.lineitem)
    WHERE lineitem.product_id = products.product_id
  )
