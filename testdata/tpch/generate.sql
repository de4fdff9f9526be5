-- The eight TPC-H tables at a small scale (1,500 customers, 15,000 orders,
-- about 60,000 line items), generated deterministically in plain DuckDB
-- with the vocabularies, key relations and date rules of the benchmark's
-- generator, so that each of the 22 queries in queries/ finds rows.
-- r(i, salt, n) is a pseudo-random integer in [0, n), the same on every run.
CREATE MACRO r(i, salt, n) AS (hash(i, salt) % n)::BIGINT;

CREATE TABLE region AS
SELECT i::INTEGER AS r_regionkey,
  ['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'][i + 1] AS r_name,
  'region comment ' || i AS r_comment
FROM range(5) g(i);

CREATE TABLE nation AS
SELECT i::INTEGER AS n_nationkey,
  ['ALGERIA', 'ARGENTINA', 'BRAZIL', 'CANADA', 'EGYPT', 'ETHIOPIA', 'FRANCE', 'GERMANY', 'INDIA',
   'INDONESIA', 'IRAN', 'IRAQ', 'JAPAN', 'JORDAN', 'KENYA', 'MOROCCO', 'MOZAMBIQUE', 'PERU', 'CHINA',
   'ROMANIA', 'SAUDI ARABIA', 'VIETNAM', 'RUSSIA', 'UNITED KINGDOM', 'UNITED STATES'][i + 1] AS n_name,
  [0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2, 4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1][i + 1]::INTEGER AS n_regionkey,
  'nation comment ' || i AS n_comment
FROM range(25) g(i);

CREATE TABLE supplier AS
SELECT i::INTEGER AS s_suppkey,
  'Supplier#' || lpad(i::VARCHAR, 9, '0') AS s_name,
  'addr ' || r(i, 's1', 100000) AS s_address,
  (i % 25)::INTEGER AS s_nationkey,
  (10 + i % 25) || '-' || lpad(r(i, 's2', 1000)::VARCHAR, 3, '0') || '-555-0199' AS s_phone,
  ((r(i, 's3', 1099999) - 99999) / 100.0)::DECIMAL(15,2) AS s_acctbal,
  CASE WHEN i % 37 = 5 THEN 'slyly Customer even Complaints ' || i ELSE 'supplier comment ' || i END AS s_comment
FROM range(1, 101) g(i);

CREATE TABLE part AS
SELECT i::INTEGER AS p_partkey,
  concat_ws(' ',
    ['almond', 'forest', 'green', 'ivory', 'khaki', 'lace', 'navy', 'peru', 'rose', 'snow'][r(i, 'p1', 10) + 1],
    ['antique', 'blue', 'chiffon', 'dodger', 'green', 'lemon', 'misty', 'orchid', 'plum', 'tan'][r(i, 'p2', 10) + 1],
    ['azure', 'beige', 'cream', 'forest', 'honeydew', 'linen', 'moccasin', 'puff', 'sienna', 'wheat'][r(i, 'p3', 10) + 1]) AS p_name,
  'Manufacturer#' || (r(i, 'p4', 5) + 1) AS p_mfgr,
  'Brand#' || (r(i, 'p4', 5) + 1) || (r(i, 'p5', 5) + 1) AS p_brand,
  concat_ws(' ',
    ['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'][r(i, 'p6', 6) + 1],
    ['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'][r(i, 'p7', 5) + 1],
    ['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER'][r(i, 'p8', 5) + 1]) AS p_type,
  (r(i, 'p9', 50) + 1)::INTEGER AS p_size,
  concat_ws(' ', ['SM', 'LG', 'MED', 'JUMBO', 'WRAP'][r(i, 'pa', 5) + 1],
    ['CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM'][r(i, 'pb', 8) + 1]) AS p_container,
  ((90000 + (i // 10) % 20001 + 100 * (i % 1000)) / 100.0)::DECIMAL(15,2) AS p_retailprice,
  'part comment ' || i AS p_comment
FROM range(1, 2001) g(i);

CREATE TABLE partsupp AS
SELECT p.i::INTEGER AS ps_partkey,
  ((p.i + j * (100 // 4 + (p.i - 1) // 100)) % 100 + 1)::INTEGER AS ps_suppkey,
  (r(p.i * 4 + j, 'ps1', 9999) + 1)::INTEGER AS ps_availqty,
  ((r(p.i * 4 + j, 'ps2', 99901) + 100) / 100.0)::DECIMAL(15,2) AS ps_supplycost,
  'partsupp comment ' || p.i || ' ' || j AS ps_comment
FROM range(1, 2001) p(i), range(4) s(j);

CREATE TABLE customer AS
SELECT i::INTEGER AS c_custkey,
  'Customer#' || lpad(i::VARCHAR, 9, '0') AS c_name,
  'addr ' || r(i, 'c1', 100000) AS c_address,
  r(i, 'c2', 25)::INTEGER AS c_nationkey,
  (10 + r(i, 'c2', 25)) || '-' || lpad(r(i, 'c3', 1000)::VARCHAR, 3, '0') || '-555-0100' AS c_phone,
  ((r(i, 'c4', 1099999) - 99999) / 100.0)::DECIMAL(15,2) AS c_acctbal,
  ['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD'][r(i, 'c5', 5) + 1] AS c_mktsegment,
  'customer comment ' || i AS c_comment
FROM range(1, 1501) g(i);

-- A third of the customers (keys divisible by 3) place no order.
CREATE TABLE orders_base AS
SELECT i AS o_orderkey,
  (SELECT list_filter(range(1, 1501), k -> k % 3 <> 0))[r(i, 'o1', 1000) + 1]::INTEGER AS o_custkey,
  DATE '1992-01-01' + r(i, 'o2', 2406)::INTEGER AS o_orderdate,
  ['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'][r(i, 'o3', 5) + 1] AS o_orderpriority,
  'Clerk#' || lpad((r(i, 'o4', 10) + 1)::VARCHAR, 9, '0') AS o_clerk,
  0::INTEGER AS o_shippriority,
  CASE WHEN i % 41 = 7 THEN 'carefully special packages requests ' || i ELSE 'order comment ' || i END AS o_comment,
  -- Large orders (every 97th) are the ones query 18 looks for.
  CASE WHEN i % 97 = 0 THEN 7 ELSE r(i, 'o5', 7) + 1 END::INTEGER AS lines
FROM range(1, 15001) g(i);

CREATE TABLE lineitem AS
WITH l AS (
  SELECT o.o_orderkey, o.o_orderdate, n AS l_linenumber,
    (r(o.o_orderkey * 8 + n, 'l1', 2000) + 1) AS l_partkey,
    r(o.o_orderkey * 8 + n, 'l2', 4) AS j,
    CASE WHEN o.o_orderkey % 97 = 0 THEN r(o.o_orderkey * 8 + n, 'l3', 6) + 45
      ELSE r(o.o_orderkey * 8 + n, 'l3', 50) + 1 END AS l_quantity,
    o.o_orderdate + (r(o.o_orderkey * 8 + n, 'l4', 121) + 1)::INTEGER AS l_shipdate,
    o.o_orderdate + (r(o.o_orderkey * 8 + n, 'l5', 61) + 30)::INTEGER AS l_commitdate,
    (r(o.o_orderkey * 8 + n, 'l6', 30) + 1)::INTEGER AS receipt_days,
    o.o_orderkey * 8 + n AS seed
  FROM orders_base o, range(1, 8) ln(n)
  WHERE n <= o.lines
)
SELECT l.o_orderkey::INTEGER AS l_orderkey,
  l.l_partkey::INTEGER AS l_partkey,
  ((l.l_partkey + l.j * (100 // 4 + (l.l_partkey - 1) // 100)) % 100 + 1)::INTEGER AS l_suppkey,
  l.l_linenumber::INTEGER AS l_linenumber,
  l.l_quantity::DECIMAL(15,2) AS l_quantity,
  (l.l_quantity * p.p_retailprice)::DECIMAL(15,2) AS l_extendedprice,
  (r(l.seed, 'l7', 11) / 100.0)::DECIMAL(15,2) AS l_discount,
  (r(l.seed, 'l8', 9) / 100.0)::DECIMAL(15,2) AS l_tax,
  CASE WHEN l.l_shipdate + l.receipt_days <= DATE '1995-06-17'
    THEN ['R', 'A'][r(l.seed, 'l9', 2) + 1] ELSE 'N' END AS l_returnflag,
  CASE WHEN l.l_shipdate > DATE '1995-06-17' THEN 'O' ELSE 'F' END AS l_linestatus,
  l.l_shipdate,
  l.l_commitdate,
  l.l_shipdate + l.receipt_days AS l_receiptdate,
  ['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'][r(l.seed, 'la', 4) + 1] AS l_shipinstruct,
  ['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'][r(l.seed, 'lb', 7) + 1] AS l_shipmode,
  'lineitem comment ' || l.seed AS l_comment
FROM l JOIN part p ON p.p_partkey = l.l_partkey;

CREATE TABLE orders AS
SELECT o.o_orderkey::INTEGER AS o_orderkey, o.o_custkey,
  CASE WHEN bool_and(l.l_linestatus = 'F') THEN 'F' WHEN bool_and(l.l_linestatus = 'O') THEN 'O' ELSE 'P' END AS o_orderstatus,
  sum(l.l_extendedprice * (1 + l.l_tax) * (1 - l.l_discount))::DECIMAL(15,2) AS o_totalprice,
  o.o_orderdate, o.o_orderpriority, o.o_clerk, o.o_shippriority, o.o_comment
FROM orders_base o JOIN lineitem l ON l.l_orderkey = o.o_orderkey
GROUP BY ALL;

DROP TABLE orders_base;
