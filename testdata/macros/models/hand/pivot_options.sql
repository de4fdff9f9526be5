MODEL (name hand.pivot_options, kind FULL);

SELECT
  order_id,
  MAX(CASE WHEN payment_method = 'credit_card' THEN amount ELSE NULL END) AS max_credit_card_cents,
  MAX(CASE WHEN payment_method = 'coupon' THEN amount ELSE NULL END) AS max_coupon_cents,
  COUNT(DISTINCT CASE WHEN payment_method <> 'gift_card' THEN payment_id ELSE NULL END) AS "gift_card_other",
  SUM(CASE WHEN amount >= 1000 THEN 1 ELSE 0 END) + 0 AS big
FROM @ref(raw.payments)
GROUP BY order_id
