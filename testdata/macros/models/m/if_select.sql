-- @IF in the select list: with an else, without one whose condition holds,
-- and without one whose condition fails (the column and its comma go, as
-- in sqlmesh); conditions of IN, BETWEEN, NOT and a variable.
MODEL (name m.if_select, kind FULL);

SELECT
  customer_id,
  @IF(@var(show_city) = 'true', city, country) AS place,
  @IF(@var(region) IN ('eu', 'uk'), 'europe', 'elsewhere') AS zone,
  @IF(2 BETWEEN 1 AND 3, tier),
  @IF(NOT 1 < 2, last_name),
  first_name
FROM @ref(raw.customers)
