-- A person's full name.
MACRO full_name(first, last, sep := ' ') AS @first || @sep || @last;

-- The tier as a label: the region's prefix when the region is eu.
MACRO tier_label(tier) AS @IF(@var(region) = 'eu', 'EU-' || COALESCE(CAST(@tier AS TEXT), '?'), 'XX-' || CAST(@tier AS TEXT));

-- The customer columns that are not personal.
MACRO public_columns(rel, alias := c) AS @STAR(@rel, alias := @alias, exclude := [first_name, last_name]);

-- A constant without parameters.
MACRO marker() AS 'märker';
