MODEL (name mart.top_credit, kind FULL);

SELECT customer_id, tier, credit
FROM @ref(raw.customers)
ORDER BY credit DESC NULLS LAST, customer_id
FETCH FIRST 3 ROWS ONLY
