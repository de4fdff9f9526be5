MODEL (name hand.pivot_status, kind FULL);

SELECT
  order_date,
  SUM(CASE WHEN status = 'placed' THEN 1 ELSE 0 END) AS "placed",
  SUM(CASE WHEN status = 'shipped' THEN 1 ELSE 0 END) AS "shipped",
  SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END) AS "completed",
  SUM(CASE WHEN status = 'returned' THEN 1 ELSE 0 END) AS "returned"
FROM @ref(raw.orders)
GROUP BY 1
