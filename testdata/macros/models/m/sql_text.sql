-- @SQL: a string read as SQL, built from a variable.
MODEL (name m.sql_text, kind FULL);

@DEF(col, 'first_name');

SELECT
  customer_id,
  @SQL('UPPER(' || @col || ')') AS upper_name,
  @SQL('LOWER(last_name)') AS lower_last,
  @SQL('''' || @var(greeting) || ', ' || ''' || first_name') AS greeting
FROM @ref(raw.customers)
