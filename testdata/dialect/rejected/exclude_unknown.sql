-- error at: nope
MODEL (name bad.exclude_unknown, kind FULL);

SELECT * EXCLUDE (nope) FROM @ref(raw.cities)
