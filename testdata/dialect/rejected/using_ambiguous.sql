-- error at: name
MODEL (name bad.using_ambiguous, kind FULL);

SELECT id, name
FROM @ref(raw.people) AS p JOIN @ref(raw.people) AS q USING (id)
