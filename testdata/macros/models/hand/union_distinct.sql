MODEL (name hand.union_distinct, kind FULL);

SELECT region, COUNT(*) AS n, SUM(amount) AS total
FROM (
  SELECT CAST(sale_id AS INTEGER) AS sale_id, CAST(amount AS DECIMAL(10,2)) AS amount, CAST(region AS TEXT) AS region,
         CAST(NULL AS TEXT) AS state, CAST(code AS TEXT) AS code, CAST(NULL AS DECIMAL(10,2)) AS vat
  FROM @ref(raw.sales_us)
  UNION
  SELECT CAST(sale_id AS INTEGER) AS sale_id, CAST(amount AS DECIMAL(10,2)) AS amount, CAST(region AS TEXT) AS region,
         CAST(NULL AS TEXT) AS state, CAST(code AS TEXT) AS code, CAST(vat AS DECIMAL(10,2)) AS vat
  FROM @ref(raw.sales_eu)
) AS u
GROUP BY region
