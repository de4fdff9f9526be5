MODEL (
  name raw.products,
  grain (product_id),
  columns (product_id INTEGER, name TEXT, category TEXT, brand TEXT, price DECIMAL(10,2), tags TEXT[], attrs STRUCT(color TEXT, size INTEGER))
);

SELECT
  i::INTEGER AS product_id,
  ['Widget', 'Gadget', 'Gizmo', 'Doohickey', 'Thingamajig', 'Sprocket'][i % 6 + 1] || ' ' || i AS name,
  ['tools', 'garden', 'kitchen', 'toys'][i % 4 + 1] AS category,
  'Brand#' || (i % 5 + 1) AS brand,
  (5 + (i * 131 % 9500) / 100.0)::DECIMAL(10,2) AS price,
  CASE WHEN i % 3 = 0 THEN ['sale', 'new'] WHEN i % 3 = 1 THEN ['classic'] ELSE [] END::TEXT[] AS tags,
  {'color': ['red', 'green', 'blue', 'weiß'][i % 4 + 1], 'size': (i % 7 + 1)::INTEGER} AS attrs
FROM range(1, 61) AS g(i)
