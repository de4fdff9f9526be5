MODEL (name core.regex, kind FULL);

SELECT customer_id,
       regexp_replace("Full Name", '\s+', '_', 'g') AS snake,
       (regexp_match("Full Name", '^(\S+)'))[1] AS first_name,
       regexp_split_to_array("Full Name", ' ') AS parts,
       split_part("Full Name", ' ', 2) AS last_name,
       "Full Name" ~* 'ö|ü' AS has_umlaut,
       substring("Full Name" FROM '[A-Z]') AS initial,
       upper(city) AS city_u,
       length("Full Name") AS len,
       position(' ' IN "Full Name") AS sp
FROM @ref(raw.customers)
