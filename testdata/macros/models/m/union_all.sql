-- @UNION of two models with different columns, as sqlmesh's: only the
-- columns both have with the same name and type (sale_id, region, amount;
-- code is an integer in one and text in the other), in the first one's
-- order, cast to their type.
MODEL (name m.union_all, kind FULL);

@UNION('all', @ref(raw.sales_eu), @ref(raw.sales_us))
