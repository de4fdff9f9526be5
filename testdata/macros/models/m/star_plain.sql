-- @STAR of a model: its columns, as its children see them.
MODEL (name m.star_plain, kind FULL);

SELECT @STAR(@ref(raw.customers)) FROM @ref(raw.customers)
