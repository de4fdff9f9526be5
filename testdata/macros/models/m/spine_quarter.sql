-- @DATE_SPINE by quarter: the part as a bare name, the end a step.
MODEL (name m.spine_quarter, kind FULL);

@DATE_SPINE(quarter, '2023-02-01', '2024-02-01')
