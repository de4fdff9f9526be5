-- Struct fields, struct literals and struct_pack.
MODEL (
  name core.product_structs
);

SELECT
  products.attrs.color AS color,
  count(*) AS n,
  max(products.attrs['size']) AS max_size,
  struct_pack(category := min(products.category), price := max(products.price)) AS summary,
  {'first': min(products.product_id), 'last': max(products.product_id)} AS id_range
FROM @ref(raw.products)
GROUP BY products.attrs.color
ORDER BY color
