-- Reading an incremental model: struct fields of its rows.
MODEL (name core.incremental_read, kind FULL);

SELECT e.kind, e.meta.ua AS ua, count(*) AS n, max(e.meta.ms) AS ms
FROM @ref(raw.events) AS e
GROUP BY ALL
