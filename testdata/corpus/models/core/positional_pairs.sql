-- POSITIONAL JOIN of two ordered derived tables.
MODEL (
  name core.positional_pairs
);

SELECT a.nation_id, a.name, b.product_id
FROM (SELECT nations.nation_id, nations.name FROM @ref(raw.nations) ORDER BY nations.nation_id) AS a
POSITIONAL JOIN (SELECT products.product_id FROM @ref(raw.products) ORDER BY products.product_id LIMIT 12) AS b
