-- TPC-H Q4: a correlated EXISTS reaching the outer table by its name.
MODEL (
  name core.order_priority_checking
);

SELECT orders.priority, count(*) AS order_count
FROM @ref(raw.orders)
WHERE orders.order_date >= DATE '2024-07-01'
  AND orders.order_date < DATE '2024-10-01'
  AND EXISTS (
    SELECT *
    FROM @ref(raw.lineitem)
    WHERE lineitem.order_id = orders.order_id
      AND lineitem.receiptdate > lineitem.shipdate + 5
  )
GROUP BY orders.priority
ORDER BY orders.priority
