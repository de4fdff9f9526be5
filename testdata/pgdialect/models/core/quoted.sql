MODEL (name core.quoted, kind FULL);

SELECT customer_id AS "CustomerId",
       "Full Name" AS "full name",
       city AS "Stadt/Ort",
       country AS "order",
       tier AS "select",
       credit AS "Kredit€"
FROM @ref(raw.customers)
