-- unnest of a list column in a derived table.
MODEL (
  name core.tag_counts
);

SELECT tag, count(*) AS products, list(product_id ORDER BY product_id) AS ids
FROM (SELECT products.product_id, unnest(products.tags) AS tag FROM @ref(raw.products))
GROUP BY tag
ORDER BY tag
