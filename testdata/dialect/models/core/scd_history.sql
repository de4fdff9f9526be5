MODEL (
  name core.scd_history,
  kind SCD_TYPE_2 (key (city_id))
);

SELECT c.city_id, c.city, {'pop': c.population} AS facts
FROM @ref(raw.cities) AS c
