MODEL (name core.grouping_sets, kind FULL);

SELECT tier, country, count(*) AS n, max(credit) AS max_credit
FROM @ref(raw.customers)
GROUP BY GROUPING SETS ((tier), (country), ())
