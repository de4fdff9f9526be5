MODEL (name bad.missing_from, kind FULL);

SELECT o.order_id, x.city
FROM @ref(raw.orders) o
