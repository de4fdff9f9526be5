-- A project macro that calls @STAR, with its default alias.
MODEL (name m.star_macro, kind FULL);

SELECT @public_columns(@ref(raw.customers)), @full_name(c.first_name, c.last_name) AS name
FROM @ref(raw.customers) AS c
