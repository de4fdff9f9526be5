-- String matching and CASE over URLs.
MODEL (
  name mart.event_pages
);

SELECT
  CASE WHEN events.page LIKE '/product/%' THEN 'product'
       WHEN starts_with(events.page, '/search') THEN 'search'
       ELSE trim(events.page, '/') END AS page_kind,
  count(*) AS hits,
  count(DISTINCT events.session_id) AS sessions,
  round(avg(events.props.duration_ms), 1) AS avg_ms
FROM @ref(raw.events)
GROUP BY page_kind
ORDER BY page_kind
