-- string_agg with a non-ASCII separator, per region.
MODEL (
  name mart.nation_roster
);

SELECT nations.region, string_agg(nations.name, ' · ' ORDER BY nations.name) AS names, count(*) AS n
FROM @ref(raw.nations)
GROUP BY nations.region
ORDER BY nations.region
