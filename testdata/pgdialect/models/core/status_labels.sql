MODEL (name core.status_labels, kind FULL);

SELECT *
FROM (VALUES ('paid', 'Paid', 1), ('shipped', 'Shipped', 2), ('cancelled', 'Cancelled', 3), ('refunded', 'Refunded', 4)) AS v(status, label, sort_key)
