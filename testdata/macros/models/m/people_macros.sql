-- Project macros over text: a separator by default and named, @IF on a
-- variable inside a macro, non-ASCII names and strings.
MODEL (name m.people_macros, kind FULL);

SELECT
  customer_id,
  @full_name(first_name, last_name) AS name,
  @full_name(last_name, first_name, sep := ', ') AS sorted_name,
  @full_name(sep := ' · ', last := '東京', first := city) AS city_line,
  @tier_label(tier) AS label
FROM @ref(raw.customers)
