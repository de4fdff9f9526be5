-- The run's variables in a full model: @this_model, @env, @execution_ds,
-- @var. @env is NULL in what apply builds: a physical table is shared by
-- the environments that read it, so it cannot hold the name of one.
MODEL (name m.run_vars, kind FULL);

SELECT
  customer_id,
  @this_model AS model,
  @env AS env,
  @execution_ds AS run_day,
  @var(region) AS region,
  @var(greeting) || ' ' || first_name AS hello
FROM @ref(raw.customers)
