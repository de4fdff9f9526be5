-- rank, dense_rank, ntile, lag and lead.
MODEL (
  name core.product_ranks
);

SELECT
  products.category,
  products.product_id,
  products.price,
  rank() OVER (PARTITION BY products.category ORDER BY products.price DESC) AS price_rank,
  dense_rank() OVER (ORDER BY products.brand) AS brand_rank,
  ntile(4) OVER (ORDER BY products.price, products.product_id) AS quartile,
  lag(products.price) OVER (PARTITION BY products.category ORDER BY products.product_id) AS prev_price,
  lead(products.name, 1, '—') OVER (PARTITION BY products.category ORDER BY products.product_id) AS next_name
FROM @ref(raw.products)
