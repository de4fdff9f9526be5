-- Lists: literals, indexing, slicing, length, aggregates into lists.
MODEL (name core.list_ops, kind FULL);

SELECT
  p.id,
  p.tags,
  p.tags[1] AS first_tag,
  p.tags[-1] AS last_tag,
  p.tags[2:3] AS middle,
  len(p.tags) AS n_tags,
  list_contains(p.tags, 'vip') AS is_vip,
  [p.id, p.city_id, 7] AS ints,
  list_concat(p.tags, ['x']) AS more
FROM @ref(raw.people) AS p
