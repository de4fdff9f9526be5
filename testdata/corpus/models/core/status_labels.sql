-- A VALUES list joined by its alias.
MODEL (
  name core.status_labels
);

SELECT st.label, count(*) AS n
FROM @ref(raw.orders)
JOIN (VALUES ('O', 'offen'), ('F', 'erfüllt'), ('P', 'ausstehend')) AS st(code, label) ON st.code = orders.status
GROUP BY st.label
ORDER BY st.label
