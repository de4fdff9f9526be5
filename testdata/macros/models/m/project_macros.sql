-- Project macros (macros/*.sql): defaults, named arguments, a macro
-- calling macros and @EACH, one without parameters called with and without
-- parentheses, a lambda passed as an argument, @IF and @var inside one.
MODEL (name m.project_macros, kind FULL);

SELECT
  p.order_id,
  @method_amounts(['credit_card', 'gift_card']),
  @method_amounts(['coupon'], suffix := '_dollars', col := amount * 2),
  @cents_to_dollars(SUM(amount), scale := 0) AS total_rounded,
  @apply_twice(x -> x + 1, COUNT(*)) AS n_plus_two,
  @marker() AS m1,
  @marker AS m2
FROM @ref(raw.payments) AS p
GROUP BY p.order_id
