-- @{x} spliced at the start, in the middle and at the end of names; a
-- non-ASCII value; two splices in one name.
MODEL (name m.interp_names, kind FULL);

@DEF(part, 'größe');
@DEF(pre, 'vor');

SELECT
  customer_id AS @{part}_id,
  tier AS my_@{part}_tier,
  city AS @{pre}_@{part},
  country AS land_@{pre}
FROM @ref(raw.customers)
