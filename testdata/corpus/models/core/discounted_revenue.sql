-- TPC-H Q19: ORs of ANDs.
MODEL (
  name core.discounted_revenue
);

SELECT sum(lineitem.unit_price * (1 - lineitem.discount)) AS revenue
FROM @ref(raw.lineitem), @ref(raw.products)
WHERE (products.product_id = lineitem.product_id AND products.brand = 'Brand#1'
       AND products.category IN ('tools', 'garden') AND lineitem.quantity BETWEEN 1 AND 11)
   OR (products.product_id = lineitem.product_id AND products.brand = 'Brand#2'
       AND products.category IN ('kitchen') AND lineitem.quantity BETWEEN 10 AND 20)
   OR (products.product_id = lineitem.product_id AND products.brand = 'Brand#4'
       AND lineitem.quantity BETWEEN 20 AND 30 AND products.attrs.size > 3)
