MODEL (name core.quoted_child, kind VIEW);

SELECT "CustomerId", "full name", "order" AS land, "select" + 1 AS "Group", q."Kredit€" * 2 AS doppelt
FROM @ref(core.quoted) AS q
WHERE "order" <> 'XX'
