-- EXCEPT: products not sold in the first week of May 2024.
MODEL (
  name core.unsold_products
);

SELECT products.product_id, products.name FROM @ref(raw.products)
EXCEPT
SELECT lineitem.product_id, products.name
FROM @ref(raw.lineitem) JOIN @ref(raw.products) ON products.product_id = lineitem.product_id
WHERE lineitem.shipdate BETWEEN DATE '2024-05-01' AND DATE '2024-05-07'
