-- A list of structs unnested into its fields.
MODEL (name core.unnest_structs, kind FULL);

SELECT id, unnest(pairs, max_depth := 2)
FROM (
  SELECT p.id, [{'k': 'math', 'v': p.scores['math']}, {'k': 'art', 'v': p.scores['art']}] AS pairs
  FROM @ref(raw.people) AS p
)
