-- For relations that list problems: any row is a violation.
AUDIT (name no_rows, blocking true, description 'the relation is empty');

SELECT * FROM @this
