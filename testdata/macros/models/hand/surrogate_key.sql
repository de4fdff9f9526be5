MODEL (name hand.surrogate_key, kind FULL);

SELECT
  customer_id,
  MD5(CONCAT(COALESCE(CAST(customer_id AS TEXT), '_sqlmesh_surrogate_key_null_'), '|',
             COALESCE(CAST(city AS TEXT), '_sqlmesh_surrogate_key_null_'), '|',
             COALESCE(CAST(tier AS TEXT), '_sqlmesh_surrogate_key_null_'))) AS customer_key,
  MD5(CONCAT(COALESCE(CAST(customer_id AS TEXT), '_sqlmesh_surrogate_key_null_'), '|',
             COALESCE(CAST(signup AS TEXT), '_sqlmesh_surrogate_key_null_'))) AS signup_key
FROM @ref(raw.customers)
