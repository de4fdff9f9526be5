MODEL (name core.ordered_sets, kind FULL);

SELECT status,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY amount) AS median_amount,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY qty) AS median_qty,
       mode() WITHIN GROUP (ORDER BY customer_id) AS usual_customer,
       string_agg(DISTINCT customer_id::text, '/') AS customers,
       array_agg(DISTINCT qty ORDER BY qty DESC) AS qtys
FROM @ref(raw.orders)
GROUP BY status
