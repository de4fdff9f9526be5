MODEL (name hand.dedup_latest, kind FULL);

SELECT id, updated_at, status, note
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY updated_at DESC) AS rn FROM @ref(raw.versions)) AS ranked
WHERE rn = 1
