-- The run's variables in a full model: @this_model, @env, @execution_ds,
-- @var. @env is the environment planned: a model that reads it has a
-- fingerprint (and a table) per environment.
MODEL (name m.run_vars, kind FULL);

SELECT
  customer_id,
  @this_model AS model,
  @env AS env,
  @execution_ds AS run_day,
  @var(region) AS region,
  @var(greeting) || ' ' || first_name AS hello
FROM @ref(raw.customers)
