-- @STAR with alias, except, prefix and suffix (named), and positionally
-- (sqlmesh's order: relation, alias, exclude, prefix, suffix) in a join.
MODEL (name m.star_options, kind FULL);

SELECT
  @STAR(@ref(raw.customers), alias := c, except := [city, tier, signup], prefix := 'cust_', suffix := '_v'),
  @STAR(@ref(raw.orders), o, [customer_id], 'order_')
FROM @ref(raw.customers) AS c
JOIN @ref(raw.orders) AS o ON o.customer_id = c.customer_id
