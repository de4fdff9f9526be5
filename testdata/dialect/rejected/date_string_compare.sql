-- error at: 'last week'
MODEL (name bad.date_string_compare, kind VIEW);

SELECT p.id, p.born > 'last week' AS recent
FROM @ref(raw.people) AS p
