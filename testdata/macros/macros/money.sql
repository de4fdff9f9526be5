-- Cents as dollars, rounded to scale places.
MACRO cents_to_dollars(col, scale := 2) AS ROUND(CAST(@col AS DECIMAL(12, 4)) / 100, @scale);

/* One amount column per payment method, in dollars: a macro calling
   @EACH, a lambda and another macro, with defaults. */
MACRO method_amounts(methods, col := amount, suffix := '_amount') AS
  @EACH(@methods, m -> @cents_to_dollars(SUM(CASE WHEN payment_method = m THEN @col ELSE 0 END)) AS @{m}@{suffix});

-- A lambda applied twice.
MACRO apply_twice(f, x) AS @f(@f(@x));
