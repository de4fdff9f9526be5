-- LATERAL: per person, the two best scores.
MODEL (name core.lateral_join, kind FULL);

SELECT p.id, best.subject, best.score
FROM @ref(raw.people) AS p,
  LATERAL (SELECT e.key AS subject, e.value AS score FROM unnest(map_entries(p.scores)) AS u(e) ORDER BY e.value DESC LIMIT 1) AS best
