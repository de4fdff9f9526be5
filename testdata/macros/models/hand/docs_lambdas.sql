MODEL (name hand.docs_lambdas, kind FULL);

SELECT
  id,
  cust_rank_1,
  case when left(cust_rank_1, 1) = 'A' then 1 when left(cust_rank_1, 1) = 'B' then 2 when left(cust_rank_1, 1) = 'C' then 3 end as cust_rank_1_int,
  sideA,
  sideB,
  sqrt(pow(sideA, 2) + pow(sideB, 2)) AS sideC,
  pi() * (cont_di / 2) * (cont_di / 2) * cont_hi AS volume
FROM
  @ref(raw.foo)
WHERE
  col1 = 1 AND col2 = 1 AND col3 = 1
