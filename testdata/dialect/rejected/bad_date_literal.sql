-- error at: '2024-13-45'
MODEL (name bad.bad_date_literal, kind FULL);

SELECT c.city_id, DATE '2024-13-45' AS d
FROM @ref(raw.cities) AS c
