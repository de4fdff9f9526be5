-- CASE, COALESCE, NULLIF, GREATEST.
MODEL (
  name core.balance_bands
);

SELECT
  CASE WHEN customers.acctbal < 0 THEN 'negative'
       WHEN customers.acctbal < 2500 THEN 'low'
       WHEN customers.acctbal < 6000 THEN 'mid'
       ELSE 'high' END AS band,
  count(*) AS n,
  sum(greatest(customers.acctbal, 0)) AS positive_balance,
  count(NULLIF(customers.segment, 'BUILDING')) AS not_building,
  min(coalesce(customers.email, '-')) AS first_email
FROM @ref(raw.customers)
GROUP BY band
ORDER BY band
