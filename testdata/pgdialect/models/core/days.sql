MODEL (name core.days, kind FULL);

SELECT g.d::date AS day, extract(isodow FROM g.d) AS dow
FROM generate_series(timestamp '2024-01-01', timestamp '2024-03-31', interval '1 day') AS g(d)
