-- Inlined into its consumers, never materialized.
MODEL (
  name med.moves_clean,
  kind EMBEDDED
);

SELECT move_id, case_id, trim(dept) AS dept, moved_at
FROM @ref(raw.moves)
WHERE move_id IS NOT NULL
