-- @PIVOT with its defaults (SUM of 1 or 0, quoted aliases), as in
-- sqlmesh's docs.
MODEL (name m.pivot_status, kind FULL);

SELECT
  order_date,
  @PIVOT(status, ['placed', 'shipped', 'completed', 'returned'])
FROM @ref(raw.orders)
GROUP BY 1
