-- SELECT * REPLACE and a qualified star.
MODEL (
  name core.products_replaced
);

SELECT products.* REPLACE (upper(products.name) AS name, round(products.price * 1.2, 2) AS price)
FROM @ref(raw.products)
WHERE products.category = 'garden'
