SELECT s_store_name,
       sum(ss_net_profit)
FROM store_sales,
     date_dim,
     store,
  (SELECT ca_zip
   FROM
     (SELECT SUBSTRING(ca_zip,1,5) ca_zip
      FROM customer_address
      WHERE SUBSTRING(ca_zip,1,5) IN ('24128', '76232', '65084', '87816', '83926', '77556', '20548', '26231',
                                      '43848', '15126', '91137', '61265', '98294', '25782', '17920', '18426',
                                      '31904', '35709', '37411', '38322', '88888', '80000', '81234', '89999')
        OR ca_zip LIKE '8%' INTERSECT
        SELECT ca_zip
        FROM
          (SELECT SUBSTRING(ca_zip,1,5) ca_zip,
                  count(*) cnt
           FROM customer_address,
                customer
           WHERE ca_address_sk = c_current_addr_sk
             AND c_preferred_cust_flag='Y'
           GROUP BY ca_zip
           HAVING count(*) >= 1) A1) A2) V1
WHERE ss_store_sk = s_store_sk
  AND ss_sold_date_sk = d_date_sk
  AND d_qoy = 2
  AND d_year = 1998
  AND (SUBSTRING(s_zip,1,2) = SUBSTRING(V1.ca_zip,1,2))
GROUP BY s_store_name
ORDER BY s_store_name
LIMIT 100;
