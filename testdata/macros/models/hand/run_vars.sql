MODEL (name hand.run_vars, kind FULL);

SELECT
  customer_id,
  'm.run_vars' AS model,
  'dev' AS env,
  CAST(CURRENT_DATE AS TEXT) AS run_day,
  'eu' AS region,
  'Grüße' || ' ' || first_name AS hello
FROM @ref(raw.customers)
