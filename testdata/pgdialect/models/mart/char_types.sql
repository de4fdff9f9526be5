MODEL (name mart.char_types, kind FULL);

SELECT customer_id,
       CASE WHEN tier = 1 THEN country ELSE city END AS where_from,
       coalesce(country, 'XX') AS country2,
       country || '-' || tier AS code,
       upper(country) AS up,
       max(country) OVER () AS max_country,
       CASE WHEN tier > 1 THEN credit END AS credit_if,
       nullif(city, 'Berlin') AS not_berlin
FROM @ref(raw.customers)
