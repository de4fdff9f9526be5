-- UNION of two differently shaped sources.
MODEL (
  name core.contacts
);

SELECT 'customer' AS kind, customers.name AS label, customers.nation_id AS nation_id FROM @ref(raw.customers) WHERE customers.customer_id <= 5
UNION
SELECT 'nation', nations.name, nations.nation_id FROM @ref(raw.nations)
ORDER BY kind, label
