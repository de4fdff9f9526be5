MODEL (name mart.case_fold_child, kind VIEW);

SELECT custid, CUSTID + 1 AS next_id, "Qty", total, "user", "group" FROM @ref(core.case_fold)
