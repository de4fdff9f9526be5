MODEL (name core.case_types, kind FULL);

SELECT order_id,
       CASE WHEN qty > 3 THEN qty ELSE amount END AS mixed,
       CASE WHEN qty > 3 THEN 1 ELSE 2.5 END AS lit_mix,
       CASE status WHEN 'paid' THEN 1 WHEN 'shipped' THEN 2::bigint END AS code,
       CASE WHEN amount > 100 THEN 'big' END AS size,
       CASE WHEN qty > 1 THEN 1.0::real ELSE 2 END AS r,
       CASE WHEN qty > 1 THEN qty::smallint ELSE 0 END AS small_or_int
FROM @ref(raw.orders)
