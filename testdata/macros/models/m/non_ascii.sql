-- Non-ASCII strings and names through @DEF, @EACH, @{x} and @FILTER; a
-- string holding @ and a macro's name is text.
MODEL (name m.non_ascii, kind FULL);

@DEF(cities, ['Kraków', 'Malmö', '東京', 'Zürich']);

SELECT
  customer_id,
  @EACH(@FILTER(@cities, c -> c <> 'Zürich'), c -> city = c AS @{c}_ist),
  '@EACH(x) ünd @{y}' AS literal_at,
  'Grüße' AS "Grüße"
FROM @ref(raw.customers)
