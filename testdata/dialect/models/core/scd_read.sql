-- A child reads the validity columns SCD_TYPE_2 adds.
MODEL (name core.scd_read, kind VIEW);

SELECT h.city_id, h.facts.pop AS pop, h.valid_from IS NOT NULL AS dated, h.valid_to IS NULL AS is_current
FROM @ref(core.scd_history) AS h
