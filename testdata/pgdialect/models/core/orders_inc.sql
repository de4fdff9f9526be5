MODEL (
  name core.orders_inc,
  kind INCREMENTAL_BY_TIME_RANGE (time_column ordered_at, batch_size 1000),
  start '2024-01-01'
);

SELECT order_id, ordered_at, amount, date_trunc('day', ordered_at)::date AS day
FROM @ref(raw.orders)
WHERE ordered_at >= @start::timestamp AND ordered_at < @end::timestamp
