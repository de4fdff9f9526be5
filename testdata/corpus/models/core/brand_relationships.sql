-- TPC-H Q16: count(DISTINCT) and NOT IN (subquery).
MODEL (
  name core.brand_relationships
);

SELECT products.brand, products.category, count(DISTINCT lineitem.order_id) AS order_cnt
FROM @ref(raw.lineitem), @ref(raw.products)
WHERE products.product_id = lineitem.product_id
  AND products.brand <> 'Brand#3'
  AND lineitem.order_id NOT IN (
    SELECT orders.order_id FROM @ref(raw.orders) WHERE orders.comment LIKE '%Köln%'
  )
GROUP BY products.brand, products.category
ORDER BY order_cnt DESC, products.brand, products.category
