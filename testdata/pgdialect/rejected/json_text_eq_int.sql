MODEL (name bad.json_text_eq_int, kind FULL);

SELECT order_id
FROM @ref(raw.orders)
WHERE payload ->> 'gift' = 1
