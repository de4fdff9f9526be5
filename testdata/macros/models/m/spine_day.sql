-- @DATE_SPINE by day: across a leap day, as the whole query.
MODEL (name m.spine_day, kind FULL);

@DATE_SPINE('day', '2024-02-27', '2024-03-02')
