MODEL (name hand.star_plain, kind FULL);

SELECT customer_id, first_name, last_name, city, country, signup, tier FROM @ref(raw.customers)
