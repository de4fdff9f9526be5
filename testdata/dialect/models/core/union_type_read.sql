-- Reading the UNION, ENUM and fixed-size array columns of a contract.
MODEL (name core.union_type_read, kind VIEW);

SELECT c.id, union_tag(c.u) AS tag, c.u.num AS num, c.mood::VARCHAR AS mood, c.pair[2] AS second, c.payload->>'street' AS street, c."Mixed Case"
FROM @ref(core.contract_nested) AS c
WHERE c.mood <> 'sad'
