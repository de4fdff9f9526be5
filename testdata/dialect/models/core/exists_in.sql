-- Correlated EXISTS, IN with a subquery, scalar subquery, ANY.
MODEL (name core.exists_in, kind FULL);

SELECT
  c.city,
  EXISTS (SELECT 1 FROM @ref(raw.people) AS p WHERE p.city_id = c.city_id AND list_contains(p.tags, 'vip')) AS has_vip,
  (SELECT count(*) FROM @ref(raw.people) AS p WHERE p.city_id = c.city_id) AS n,
  c.city_id IN (SELECT p.city_id FROM @ref(raw.people) AS p WHERE p.id > 35) AS late,
  c.population > ANY (SELECT population FROM @ref(raw.cities) WHERE country = 'Schweiz') AS bigger
FROM @ref(raw.cities) AS c
