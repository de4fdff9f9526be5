MODEL (name hand.jaffle_orders, kind FULL);

WITH orders AS (
  SELECT * FROM @ref(raw.orders)
), payments AS (
  SELECT payment_id, order_id, payment_method, amount / 100.0 AS amount FROM @ref(raw.payments)
), order_payments AS (
  SELECT
    order_id,
    SUM(CASE WHEN payment_method = 'credit_card' THEN amount ELSE 0 END) AS credit_card_amount,
    SUM(CASE WHEN payment_method = 'coupon' THEN amount ELSE 0 END) AS coupon_amount,
    SUM(CASE WHEN payment_method = 'bank_transfer' THEN amount ELSE 0 END) AS bank_transfer_amount,
    SUM(CASE WHEN payment_method = 'gift_card' THEN amount ELSE 0 END) AS gift_card_amount,
    SUM(amount) AS total_amount
  FROM payments
  GROUP BY order_id
), final AS (
  SELECT
    orders.order_id,
    orders.customer_id,
    orders.order_date,
    orders.status,
    order_payments.credit_card_amount,
    order_payments.coupon_amount,
    order_payments.bank_transfer_amount,
    order_payments.gift_card_amount,
    order_payments.total_amount AS amount
  FROM orders
  LEFT JOIN order_payments ON orders.order_id = order_payments.order_id
)
SELECT * FROM final
