-- Comments between a ref and its alias, and a line comment before AS.
MODEL (
  name core.commented_alias
);

SELECT o.order_id, c.name, n.name AS nation
FROM @ref(raw.orders) /* the orders */ o
JOIN @ref(raw.customers) -- the customers
  AS c ON c.customer_id = o.customer_id
JOIN @ref(raw.nations) /* nested /* comment */ here */ "n" ON n.nation_id = c.nation_id
WHERE o.order_id <= 25
ORDER BY o.order_id
