MODEL (name hand.union_models, kind FULL);

SELECT CAST(customer_id AS INTEGER) AS customer_id, CAST(tier AS INTEGER) AS tier FROM @ref(m.star_plain)
UNION ALL
SELECT CAST(customer_id AS INTEGER) AS customer_id, CAST(tier AS INTEGER) AS tier FROM @ref(hand.star_plain)
UNION ALL
SELECT CAST(customer_id AS INTEGER) AS customer_id, CAST(tier AS INTEGER) AS tier FROM @ref(m.def_values)
