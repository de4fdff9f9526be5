MODEL (name core.case_fold, kind FULL);

-- Unquoted names fold to lower case; quoted ones keep theirs.
SELECT O.Customer_ID AS CustId, O.Order_Id, "O".qty AS "Qty", Sum(O.Amount) OVER (PARTITION BY O.Customer_Id) AS Total,
       O.status AS "user", O.qty AS "group"
FROM @ref(raw.orders) AS "O", @ref(raw.orders) AS O
WHERE O.Order_ID = "O".order_id
