MODEL (name core.order_by_all, kind FULL);

SELECT s.product, s.region, s.q2 FROM @ref(raw.sales) AS s ORDER BY ALL DESC
