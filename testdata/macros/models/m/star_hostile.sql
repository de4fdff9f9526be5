-- @STAR of quoted, hostile names: a space, a dot, a keyword, non-ASCII,
-- mixed case; one excluded by its quoted name; with a prefix.
MODEL (name m.star_hostile, kind FULL);

SELECT @STAR(@ref(raw.hostile), exclude := ["a.b"], prefix := 'h ') FROM @ref(raw.hostile)
