-- @DATE_SPINE by month: the part from a @DEF.
MODEL (name m.spine_month, kind FULL);

@DEF(part, 'month');
@DATE_SPINE(@part, '2024-01-15', '2024-05-20')
