MODEL (name core.natural, kind FULL);

SELECT *
FROM @ref(core.latest_order) NATURAL JOIN @ref(core.status_counts)
