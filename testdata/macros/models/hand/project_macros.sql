MODEL (name hand.project_macros, kind FULL);

SELECT
  p.order_id,
  ROUND(CAST(SUM(CASE WHEN payment_method = 'credit_card' THEN amount ELSE 0 END) AS DECIMAL(12, 4)) / 100, 2) AS credit_card_amount,
  ROUND(CAST(SUM(CASE WHEN payment_method = 'gift_card' THEN amount ELSE 0 END) AS DECIMAL(12, 4)) / 100, 2) AS gift_card_amount,
  ROUND(CAST(SUM(CASE WHEN payment_method = 'coupon' THEN amount * 2 ELSE 0 END) AS DECIMAL(12, 4)) / 100, 2) AS coupon_dollars,
  ROUND(CAST(SUM(amount) AS DECIMAL(12, 4)) / 100, 0) AS total_rounded,
  COUNT(*) + 1 + 1 AS n_plus_two,
  'märker' AS m1,
  'märker' AS m2
FROM @ref(raw.payments) AS p
GROUP BY p.order_id
