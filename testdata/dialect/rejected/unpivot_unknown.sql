-- error at: q9
MODEL (name bad.unpivot_unknown, kind FULL);

UNPIVOT @ref(raw.sales) ON q1, q9 INTO NAME quarter VALUE amount
