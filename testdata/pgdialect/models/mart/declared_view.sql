MODEL (name mart.declared_view, kind VIEW);

SELECT customer_id, total, label, last_at, "Größe", total * 2 AS doubled, label || '!' AS loud
FROM @ref(core.declared)
