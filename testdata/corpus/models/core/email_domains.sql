-- split_part, regexp_extract, coalesce over NULLs.
MODEL (
  name core.email_domains
);

SELECT
  coalesce(split_part(customers.email, '@', 2), '(none)') AS domain,
  regexp_extract(customers.email, '\.([a-z]+)$', 1) AS tld,
  count(*) AS n,
  count(customers.email) AS with_email
FROM @ref(raw.customers)
GROUP BY ALL
ORDER BY domain, tld
