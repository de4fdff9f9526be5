MODEL (name hand.star_options, kind FULL);

SELECT
  c.customer_id AS cust_customer_id_v, c.first_name AS cust_first_name_v, c.last_name AS cust_last_name_v, c.country AS cust_country_v,
  o.order_id AS order_order_id, o.order_date AS order_order_date, o.status AS order_status
FROM @ref(raw.customers) AS c
JOIN @ref(raw.orders) AS o ON o.customer_id = c.customer_id
