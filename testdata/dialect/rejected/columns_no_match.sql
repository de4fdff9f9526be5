-- error at: COLUMNS
MODEL (name bad.columns_no_match, kind FULL);

SELECT COLUMNS('^zz') FROM @ref(raw.sales)
