MODEL (name core.coalesced, kind FULL);

SELECT order_id,
       coalesce(amount, 0) AS amount0,
       coalesce(qty, 0.5) AS qty_or_half,
       nullif(status, 'paid') AS not_paid,
       coalesce(nullif(qty, 1), 100::bigint) AS qty_big,
       coalesce(payload ->> 'gift', 'n/a') AS gift,
       greatest(qty, amount) AS g,
       least(qty, 3) AS l,
       coalesce(NULL, 'x') AS lit
FROM @ref(raw.orders)
