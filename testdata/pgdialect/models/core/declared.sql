MODEL (
  name core.declared,
  kind FULL,
  columns (customer_id BIGINT, total NUMERIC(12,2), label VARCHAR(10), last_at TIMESTAMPTZ, "Größe" SMALLINT)
);

-- Declared columns other than the query's own types: the contract casts.
SELECT customer_id, sum(amount) AS total, max(status) AS label, max(ordered_at) AS last_at, max(qty) AS "Größe"
FROM @ref(raw.orders)
GROUP BY customer_id
