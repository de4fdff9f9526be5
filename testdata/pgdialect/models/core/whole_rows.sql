MODEL (name core.whole_rows, kind FULL);

SELECT c.*, to_jsonb(s) ->> 'paid' AS paid_text, row_to_json(s)::text AS s_json
FROM @ref(raw.categories) c
LEFT JOIN @ref(core.status_counts) s ON s.customer_id = c.cat_id
