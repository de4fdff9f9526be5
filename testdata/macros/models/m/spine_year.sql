-- @DATE_SPINE by year: the part in capitals, typed dates.
MODEL (name m.spine_year, kind FULL);

@DATE_SPINE('YEAR', DATE '2020-06-30', DATE '2024-01-01')
