-- list and string aggregates with ORDER BY, lambdas.
MODEL (
  name core.category_lists
);

SELECT
  products.category,
  list(products.name ORDER BY products.product_id)[1:3] AS first_three,
  string_agg(DISTINCT products.brand, ', ' ORDER BY products.brand) AS brands,
  list_transform(list(DISTINCT products.attrs.color ORDER BY products.attrs.color), x -> upper(x)) AS colors,
  len(list_filter(list(products.price), p -> p > 50)) AS pricey
FROM @ref(raw.products)
GROUP BY products.category
ORDER BY products.category
