MODEL (name core.customer_arrays, kind FULL);

SELECT c.customer_id,
       array_agg(o.order_id ORDER BY o.ordered_at) AS order_ids,
       ARRAY[c.country::text, c.city] AS place,
       array_length(array_agg(o.order_id), 1) AS n,
       (array_agg(o.amount ORDER BY o.amount DESC NULLS LAST))[1] AS top_amount,
       cardinality(ARRAY[1, 2, 3]) AS three
FROM @ref(raw.customers) c
JOIN @ref(raw.orders) o USING (customer_id)
GROUP BY c.customer_id, c.country, c.city
