-- CUBE over two dimensions.
MODEL (
  name core.catalog_cube,
  columns (category TEXT, brand TEXT, n BIGINT, avg_price DOUBLE)
);

SELECT products.category, products.brand, count(*) AS n, round(avg(products.price), 2) AS avg_price
FROM @ref(raw.products)
GROUP BY CUBE (products.category, products.brand)
ORDER BY products.category NULLS FIRST, products.brand NULLS FIRST
