-- Lambdas and list comprehensions.
MODEL (name core.list_lambdas, kind FULL);

SELECT
  p.id,
  list_transform(p.tags, t -> upper(t)) AS upper_tags,
  list_filter(p.tags, t -> len(t) > 4) AS long_tags,
  [t || '!' FOR t IN p.tags IF t <> 'beta'] AS shouted,
  list_reduce([p.id, 2, 3], (a, b) -> a + b) AS total,
  list_transform([1, 2, 3], x -> x * p.city_id) AS scaled,
  list_sort(p.tags, 'DESC') AS sorted_desc
FROM @ref(raw.people) AS p
