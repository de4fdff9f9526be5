MODEL (name core.predicates, kind FULL);

SELECT order_id,
       (customer_id, qty) > (2, 1) AS row_gt,
       amount IS DISTINCT FROM 80.50 AS not_8050,
       qty BETWEEN SYMMETRIC 5 AND 2 AS mid,
       status IN ('paid', 'shipped') AND NOT (qty > 5) AS ok,
       CAST(order_id AS text) LIKE '10%' AS like10,
       status ILIKE 'P%' AS ip,
       amount IS NULL AS no_amount
FROM @ref(raw.orders)
