MODEL (name core.formatting, kind FULL);

SELECT order_id,
       to_char(ordered_at, 'YYYY-MM-DD') AS day_text,
       format('%s-%s', order_id, status) AS key,
       concat_ws('|', status, qty, amount) AS line,
       lpad(qty::text, 3, '0') AS padded,
       md5(status) AS h,
       to_char(amount, 'FM9990.00') AS money
FROM @ref(raw.orders)
