-- error at: list_transform
MODEL (name bad.lambda_on_scalar, kind FULL);

SELECT p.id, list_transform(p.id, x -> x + 1) AS ids
FROM @ref(raw.people) AS p
