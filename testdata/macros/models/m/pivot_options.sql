-- @PIVOT with every option named: agg, cmp, prefix, suffix, then_value,
-- else_value, quote, distinct; and alias := FALSE inside an expression.
MODEL (name m.pivot_options, kind FULL);

SELECT
  order_id,
  @PIVOT(payment_method, ['credit_card', 'coupon'], agg := 'MAX', prefix := 'max_', suffix := '_cents',
         then_value := amount, else_value := NULL, quote := FALSE),
  @PIVOT(payment_method, ['gift_card'], cmp := '<>', distinct := TRUE, agg := 'count', then_value := payment_id, else_value := NULL, suffix := '_other'),
  @PIVOT(amount, [1000], cmp := '>=', alias := FALSE) + 0 AS big
FROM @ref(raw.payments)
GROUP BY order_id
