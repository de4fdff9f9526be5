-- Top-N per group through a window in a derived table.
MODEL (
  name mart.top_products_per_category
);

SELECT category, product_id, revenue
FROM (
  SELECT products.category, products.product_id, sum(lineitem.quantity * lineitem.unit_price) AS revenue,
         row_number() OVER (PARTITION BY products.category ORDER BY sum(lineitem.quantity * lineitem.unit_price) DESC, products.product_id) AS rn
  FROM @ref(raw.products), @ref(raw.lineitem)
  WHERE lineitem.product_id = products.product_id
  GROUP BY products.category, products.product_id
) ranked
WHERE rn <= 3
ORDER BY category, rn
