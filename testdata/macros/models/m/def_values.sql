-- @DEF of a number, a string, a list of names and a list of strings.
MODEL (name m.def_values, kind FULL);

@DEF(factor, 3);
@DEF(label, 'Kunde');
@DEF(keys, [customer_id, tier]);
@DEF(countries, ('DE', 'FR', 'JP'));

SELECT
  @EACH(@keys, k -> k),
  tier * @factor AS tripled,
  @label || ' ' || first_name AS greeting,
  country IN @countries AS in_list
FROM @ref(raw.customers)
