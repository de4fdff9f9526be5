-- TPC-H Q14.
MODEL (
  name core.promotion_effect
);

SELECT
  round(100.00 * sum(CASE WHEN products.category = 'toys' THEN lineitem.unit_price * (1 - lineitem.discount) ELSE 0 END)
    / sum(lineitem.unit_price * (1 - lineitem.discount)), 4) AS promo_revenue
FROM @ref(raw.lineitem), @ref(raw.products)
WHERE lineitem.product_id = products.product_id
  AND lineitem.shipdate >= DATE '2024-09-01'
  AND lineitem.shipdate < DATE '2024-10-01'
