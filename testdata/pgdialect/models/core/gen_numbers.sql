MODEL (name core.gen_numbers, kind FULL);

SELECT o.order_id, generate_series(1, o.qty) AS unit_no
FROM @ref(raw.orders) o
WHERE o.qty <= 3
