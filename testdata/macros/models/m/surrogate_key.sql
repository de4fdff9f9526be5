-- @GENERATE_SURROGATE_KEY of columns of several types, NULLs among them,
-- and of a list from a @DEF.
MODEL (name m.surrogate_key, kind FULL);

@DEF(key_cols, [customer_id, signup]);

SELECT
  customer_id,
  @GENERATE_SURROGATE_KEY(customer_id, city, tier) AS customer_key,
  @GENERATE_SURROGATE_KEY(@key_cols) AS signup_key
FROM @ref(raw.customers)
