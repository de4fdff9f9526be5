MODEL (
  name mart.daily_metrics,
  kind FULL,
  grain (day),
  columns (day DATE, events BIGINT, total DOUBLE),
  audits (not_null(day), unique(day)),
  description 'Events and metric total per day of occurrence'
);

SELECT CAST(occurred_at AS DATE) AS day, count(*) AS events, round(sum(metric_value), 2) AS total
FROM @ref(core.events)
GROUP BY ALL
