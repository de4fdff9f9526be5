MODEL (name core.star_using, kind FULL);

-- * over a USING join: the merged column first, then each side's rest.
SELECT *
FROM @ref(core.latest_order) l
FULL JOIN @ref(core.big_customers) b USING (customer_id)
