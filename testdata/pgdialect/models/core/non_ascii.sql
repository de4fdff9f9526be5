MODEL (name core.non_ascii, kind FULL);

SELECT customer_id,
       lower("Full Name") AS lower_name,
       left(city, 3) AS city3,
       'Grüße, ' || "Full Name" || ' 👋' AS greeting,
       char_length(city) AS chars,
       octet_length(city) AS bytes,
       reverse(city) AS rev
FROM @ref(raw.customers)
WHERE city IS NOT NULL
