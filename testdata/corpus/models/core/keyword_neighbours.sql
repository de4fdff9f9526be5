-- Bare aliases that are (unreserved) keywords, and clauses right after a
-- ref: WINDOW, UNION ALL, ORDER BY.
MODEL (
  name core.keyword_neighbours
);

SELECT source.order_id AS id, "value".name AS label, year.region AS region
FROM @ref(raw.orders) source
JOIN @ref(raw.customers) "value" ON "value".customer_id = source.customer_id
JOIN @ref(raw.nations) year ON year.nation_id = "value".nation_id
WHERE source.order_id < 20
UNION ALL
SELECT nations.nation_id, nations.name, nations.region FROM @ref(raw.nations)
UNION ALL
SELECT customers.customer_id, customers.name, customers.segment FROM @ref(raw.customers) WINDOW w AS (ORDER BY customers.customer_id)
UNION ALL
SELECT products.product_id, products.name, products.category FROM @ref(raw.products)
ORDER BY region, id, label
