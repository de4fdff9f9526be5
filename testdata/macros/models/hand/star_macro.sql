MODEL (name hand.star_macro, kind FULL);

SELECT c.customer_id, c.city, c.country, c.signup, c.tier, c.first_name || ' ' || c.last_name AS name
FROM @ref(raw.customers) AS c
