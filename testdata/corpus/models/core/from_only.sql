-- FROM without SELECT, filtered by the table's name.
MODEL (
  name core.from_only
);

FROM @ref(raw.nations)
WHERE nations.region = 'EUROPE'
ORDER BY nations.nation_id
