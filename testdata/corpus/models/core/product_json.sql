-- JSON from structs and lists.
MODEL (
  name core.product_json
);

SELECT products.product_id, to_json(products.attrs) AS attrs_json, json_array_length(to_json(products.tags)) AS n_tags,
       to_json(products.attrs) ->> 'color' AS color
FROM @ref(raw.products)
WHERE products.product_id <= 10
ORDER BY products.product_id
