MODEL (name core.arrays2, kind FULL);

SELECT order_id,
       tags[1:2] AS first_two,
       array_position(tags, 'web') AS web_at,
       array_remove(tags, 'sale') AS no_sale,
       array_cat(tags, ARRAY['z']) AS more,
       tags @> ARRAY['web'] AS has_web,
       tags && ARRAY['sale', 'gift'] AS promo,
       array_to_string(tags, ';') AS joined,
       status LIKE ANY (ARRAY['p%', 's%']) AS ps,
       status SIMILAR TO '(paid|shipped)' AS sim
FROM @ref(raw.orders)
WHERE tags IS NOT NULL
