MODEL (
  name raw.events,
  grain (event_id),
  columns (event_id INTEGER, customer_id INTEGER, session_id TEXT, event_type TEXT, occurred_at TIMESTAMP, page TEXT, props STRUCT(device TEXT, duration_ms INTEGER))
);

SELECT
  i::INTEGER AS event_id,
  (i * 11 % 200 + 1)::INTEGER AS customer_id,
  's' || ((i * 11 % 200 + 1) * 100 + i // 40) AS session_id,
  ['view', 'view', 'click', 'add_to_cart', 'purchase', 'view'][i * 5 % 6 + 1] AS event_type,
  TIMESTAMP '2024-03-01 00:00:00' + to_seconds((i * 97 % 86400) + (i // 40) * 3600) AS occurred_at,
  ['/home', '/search?q=ß', '/product/' || (i % 60 + 1), '/cart', '/checkout'][i % 5 + 1] AS page,
  {'device': ['mobile', 'desktop', 'tablet'][i % 3 + 1], 'duration_ms': (i * 37 % 5000)::INTEGER} AS props
FROM range(1, 4001) AS g(i)
