MODEL (name hand.union_models, kind FULL);

SELECT CAST(customer_id AS INTEGER) AS customer_id, CAST(first_name AS TEXT) AS first_name, CAST(last_name AS TEXT) AS last_name,
       CAST(city AS TEXT) AS city, CAST(country AS TEXT) AS country, CAST(signup AS DATE) AS signup, CAST(tier AS INTEGER) AS tier,
       CAST(NULL AS INTEGER) AS tripled, CAST(NULL AS TEXT) AS greeting, CAST(NULL AS BOOLEAN) AS in_list
FROM @ref(m.star_plain)
UNION ALL
SELECT CAST(customer_id AS INTEGER), CAST(first_name AS TEXT), CAST(last_name AS TEXT), CAST(city AS TEXT), CAST(country AS TEXT),
       CAST(signup AS DATE), CAST(tier AS INTEGER), CAST(NULL AS INTEGER), CAST(NULL AS TEXT), CAST(NULL AS BOOLEAN)
FROM @ref(hand.star_plain)
UNION ALL
SELECT CAST(customer_id AS INTEGER), CAST(NULL AS TEXT), CAST(NULL AS TEXT), CAST(NULL AS TEXT), CAST(NULL AS TEXT),
       CAST(NULL AS DATE), CAST(tier AS INTEGER), CAST(tripled AS INTEGER), CAST(greeting AS TEXT), CAST(in_list AS BOOLEAN)
FROM @ref(m.def_values)
