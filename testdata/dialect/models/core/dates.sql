MODEL (name core.dates, kind FULL);

SELECT
  p.id,
  date_part('year', p.born) AS y,
  extract(month FROM p.born) AS m,
  date_diff('day', p.born, DATE '2024-03-01') AS age_days,
  age(TIMESTAMP '2024-03-01', p.born::TIMESTAMP) AS age,
  strftime(p.born, '%d/%m/%Y') AS fr,
  make_date(2024, 1, p.id % 28 + 1) AS made,
  last_day(p.born) AS eom,
  p.born + INTERVAL 1 MONTH AS next_month
FROM @ref(raw.people) AS p
