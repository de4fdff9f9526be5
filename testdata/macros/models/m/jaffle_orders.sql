-- dbt-labs/jaffle_shop, models/orders.sql (Apache-2.0): its payment-method
-- loop ({% set payment_methods = [...] %} and {% for payment_method in
-- payment_methods %} … as {{ payment_method }}_amount) written with @DEF and
-- @EACH. The lambda's parameter is named method: a bare parameter stands for
-- its value wherever it is written, so it must not be a column's name.
MODEL (name m.jaffle_orders, kind FULL);

@DEF(payment_methods, ['credit_card', 'coupon', 'bank_transfer', 'gift_card']);

WITH orders AS (
  SELECT * FROM @ref(raw.orders)
), payments AS (
  SELECT payment_id, order_id, payment_method, amount / 100.0 AS amount FROM @ref(raw.payments)
), order_payments AS (
  SELECT
    order_id,
    @EACH(@payment_methods, method -> SUM(CASE WHEN payment_method = method THEN amount ELSE 0 END) AS @{method}_amount),
    SUM(amount) AS total_amount
  FROM payments
  GROUP BY order_id
), final AS (
  SELECT
    orders.order_id,
    orders.customer_id,
    orders.order_date,
    orders.status,
    @EACH(@payment_methods, method -> order_payments.@{method}_amount),
    order_payments.total_amount AS amount
  FROM orders
  LEFT JOIN order_payments ON orders.order_id = order_payments.order_id
)
SELECT * FROM final
