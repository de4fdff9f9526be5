MODEL (name hand.union_all, kind FULL);

SELECT CAST(sale_id AS INTEGER) AS sale_id, CAST(region AS TEXT) AS region, CAST(amount AS DECIMAL(10,2)) AS amount,
       CAST(vat AS DECIMAL(10,2)) AS vat, CAST(code AS TEXT) AS code, CAST(NULL AS TEXT) AS state
FROM @ref(raw.sales_eu)
UNION ALL
SELECT CAST(sale_id AS INTEGER) AS sale_id, CAST(region AS TEXT) AS region, CAST(amount AS DECIMAL(10,2)) AS amount,
       CAST(NULL AS DECIMAL(10,2)) AS vat, CAST(code AS TEXT) AS code, CAST(state AS TEXT) AS state
FROM @ref(raw.sales_us)
