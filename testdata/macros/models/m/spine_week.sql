-- @DATE_SPINE by week: seven days from the start, the end not a step; in a FROM.
MODEL (name m.spine_week, kind FULL);

SELECT date_week, EXTRACT(DOW FROM date_week) AS dow FROM (@DATE_SPINE('week', '2024-01-01', '2024-02-01')) AS s
