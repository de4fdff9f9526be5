-- @UNION of two models with different columns: stacked by name, every
-- column of either (vat only in the EU, state only in the US: NULL where a
-- model lacks it); code is an integer in one and text in the other, so it
-- is read as text in both.
MODEL (name m.union_all, kind FULL);

@UNION('all', @ref(raw.sales_eu), @ref(raw.sales_us))
