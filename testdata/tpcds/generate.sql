-- The 24 TPC-DS tables at a small scale (200 items, 500 customers, about
-- 20,000 store sales, 10,000 catalog and 5,000 web sales from 1998 to
-- 2002), generated deterministically in plain DuckDB with the benchmark's
-- column names and types, key relations and the vocabularies its queries
-- filter on. r(i, salt, n) is a pseudo-random integer in [0, n); pick(i,
-- salt, list) one element of list; k(i, salt, n) a surrogate key in
-- [1, n] that is NULL one time in fifty, as the benchmark's foreign keys are.
-- Unlike the benchmark's slowly changing dimensions, every row of item,
-- store, call_center and web_site has an id of its own, so that the
-- queries' ORDER BY i_item_id (and the like) order their rows fully.
CREATE MACRO r(i, salt, n) AS (hash(i, salt) % n)::BIGINT;
CREATE MACRO pick(i, salt, l) AS l[r(i, salt, len(l)) + 1];
CREATE MACRO k(i, salt, n) AS CASE WHEN r(i, salt || '?', 50) = 0 THEN NULL ELSE r(i, salt, n) + 1 END::INTEGER;
CREATE MACRO id(i) AS 'AAAAAAAA' || lpad(i::VARCHAR, 8, '0');
CREATE MACRO money(i, salt, lo, hi) AS ((lo * 100 + r(i, salt, (hi - lo) * 100)) / 100.0)::DECIMAL(7,2);
CREATE MACRO states() AS ['TN', 'TX', 'GA', 'CA', 'KY', 'IN', 'OH', 'NM', 'VA', 'IL', 'MO', 'MI', 'NY', 'WA', 'NE', 'KS', 'IA', 'WI', 'OR', 'MS', 'ND', 'SD', 'AL', 'MN', 'SC', 'NC', 'CO', 'AR', 'MT', 'FL', 'LA', 'OK', 'WV', 'PA', 'ID'];
CREATE MACRO counties() AS ['Williamson County', 'Ziebach County', 'Walker County', 'Richland County', 'Franklin Parish', 'Barrow County', 'Daviess County', 'Luce County', 'Fairfield County', 'Bronx County', 'Orange County', 'Jackson County'];
CREATE MACRO cities() AS ['Midway', 'Fairview', 'Oak Grove', 'Five Points', 'Pleasant Hill', 'Centerville', 'Riverside', 'Bethel', 'Greenwood', 'Union', 'Oakland', 'Salem', 'Edgewood', 'Concord', 'Hopewell'];

CREATE TABLE date_dim AS
SELECT (2450815 + i)::INTEGER AS d_date_sk, id(2450815 + i) AS d_date_id, d AS d_date,
  ((year(d) - 1900) * 12 + month(d) - 1)::INTEGER AS d_month_seq,
  ((2450815 + i - 2415019) // 7)::INTEGER AS d_week_seq,
  ((year(d) - 1900) * 4 + quarter(d) - 1)::INTEGER AS d_quarter_seq,
  year(d)::INTEGER AS d_year, dayofweek(d)::INTEGER AS d_dow, month(d)::INTEGER AS d_moy, day(d)::INTEGER AS d_dom,
  quarter(d)::INTEGER AS d_qoy, year(d)::INTEGER AS d_fy_year,
  ((year(d) - 1900) * 4 + quarter(d) - 1)::INTEGER AS d_fy_quarter_seq,
  ((2450815 + i - 2415019) // 7)::INTEGER AS d_fy_week_seq,
  dayname(d) AS d_day_name, year(d) || 'Q' || quarter(d) AS d_quarter_name,
  CASE WHEN month(d) = 12 AND day(d) = 25 THEN 'Y' ELSE 'N' END AS d_holiday,
  CASE WHEN dayofweek(d) IN (0, 6) THEN 'Y' ELSE 'N' END AS d_weekend,
  CASE WHEN month(d) = 12 AND day(d) = 26 THEN 'Y' ELSE 'N' END AS d_following_holiday,
  (2450815 + i - day(d) + 1)::INTEGER AS d_first_dom,
  (2450815 + i - day(d) + day(last_day(d)))::INTEGER AS d_last_dom,
  (2450815 + i - 365)::INTEGER AS d_same_day_ly, (2450815 + i - 91)::INTEGER AS d_same_day_lq,
  'N' AS d_current_day, 'N' AS d_current_week, 'N' AS d_current_month, 'N' AS d_current_quarter, 'N' AS d_current_year
FROM (SELECT i, (DATE '1998-01-01' + i::INTEGER) AS d FROM range(0, 2191) g(i));

CREATE TABLE time_dim AS
SELECT i::INTEGER AS t_time_sk, id(i) AS t_time_id, i::INTEGER AS t_time,
  (i // 3600)::INTEGER AS t_hour, (i // 60 % 60)::INTEGER AS t_minute, (i % 60)::INTEGER AS t_second,
  CASE WHEN i < 43200 THEN 'AM' ELSE 'PM' END AS t_am_pm,
  ['third', 'first', 'second'][(i // 28800) + 1] AS t_shift, 'night' AS t_sub_shift,
  CASE WHEN i // 3600 BETWEEN 6 AND 8 THEN 'breakfast' WHEN i // 3600 BETWEEN 11 AND 13 THEN 'lunch'
    WHEN i // 3600 BETWEEN 17 AND 19 THEN 'dinner' END AS t_meal_time
FROM range(0, 86400, 60) g(i);

CREATE TABLE item AS
WITH c AS (SELECT i, r(i, 'cat', 10) AS cat, r(i, 'cls', 4) AS cls, r(i, 'brand', 5) AS brand FROM range(1, 201) g(i))
SELECT i::INTEGER AS i_item_sk, id(i) AS i_item_id,
  CASE WHEN i % 2 = 1 THEN DATE '1997-10-27' ELSE DATE '2000-10-27' END AS i_rec_start_date,
  CASE WHEN i % 2 = 1 AND i % 4 = 1 THEN DATE '2000-10-26' END AS i_rec_end_date,
  'Item description ' || i AS i_item_desc,
  money(i, 'ip', 1, 100) AS i_current_price, money(i, 'iw', 1, 60) AS i_wholesale_cost,
  (1000001 + cat * 1000 + brand)::INTEGER AS i_brand_id,
  ['amalgimporto #', 'edu packscholar #', 'exportiunivamalg #', 'importoamalg #', 'scholaramalgamalg #'][brand + 1] || (cat + 1) AS i_brand,
  (cls + 1)::INTEGER AS i_class_id,
  [['fiction', 'history', 'romance', 'computers'], ['jewelry', 'bracelets', 'rings', 'gold'], ['accessories', 'shirts', 'pants', 'dresses'],
   ['birdal', 'furniture', 'bedding', 'lighting'], ['sports-apparel', 'womens', 'mens', 'infants'], ['football', 'baseball', 'golf', 'athletic shoes'],
   ['musical', 'classical', 'pop', 'rock'], ['televisions', 'stereo', 'portable', 'wireless'], ['toddlers', 'newborn', 'school-uniforms', 'kids'],
   ['fragrances', 'pants', 'swimwear', 'shirts']][cat + 1][cls + 1] AS i_class,
  (cat + 1)::INTEGER AS i_category_id,
  ['Books', 'Jewelry', 'Women', 'Home', 'Men', 'Sports', 'Music', 'Electronics', 'Children', 'Shoes'][cat + 1] AS i_category,
  (r(i, 'mf', 1000) + 1)::INTEGER AS i_manufact_id, 'manufact ' || r(i, 'mf', 1000) AS i_manufact,
  pick(i, 'size', ['small', 'medium', 'large', 'extra large', 'petite', 'economy', 'N/A']) AS i_size,
  'formulation ' || i AS i_formulation,
  pick(i, 'color', ['slate', 'blanched', 'burnished', 'chiffon', 'smoke', 'purple', 'orchid', 'papaya', 'frosted', 'peach', 'powder', 'lavender', 'khaki', 'cyan', 'pale', 'beige']) AS i_color,
  pick(i, 'units', ['Each', 'Ounce', 'Oz', 'Bunch', 'Ton', 'N/A', 'Dozen', 'Box', 'Pound', 'Pallet', 'Gross', 'Cup', 'Dram', 'Tsp', 'Lb', 'Bundle', 'Carton', 'Case', 'Gram', 'Unknown']) AS i_units,
  'Unknown' AS i_container, (r(i, 'mgr', 100) + 1)::INTEGER AS i_manager_id,
  'product ' || i AS i_product_name
FROM c;

CREATE TABLE customer_address AS
SELECT i::INTEGER AS ca_address_sk, id(i) AS ca_address_id, (r(i, 'n', 999) + 1)::VARCHAR AS ca_street_number,
  pick(i, 'sn', ['Main', 'Oak', 'Park', 'Elm', 'Lake', 'Hill']) || ' ' || pick(i, 'sn2', ['First', 'Second', 'Third']) AS ca_street_name,
  pick(i, 'st', ['Street', 'Ave', 'Blvd', 'Ct.', 'Dr.']) AS ca_street_type, 'Suite ' || r(i, 'su', 100) AS ca_suite_number,
  pick(i, 'city', cities()) AS ca_city, pick(i, 'county', counties()) AS ca_county,
  states()[r(i, 'state', 35) + 1] AS ca_state, lpad((r(i, 'zip', 99999))::VARCHAR, 5, '8') AS ca_zip,
  'United States' AS ca_country, (-5 - r(i, 'gmt', 4))::DECIMAL(5,2) AS ca_gmt_offset,
  pick(i, 'lt', ['apartment', 'condo', 'single family']) AS ca_location_type
FROM range(1, 251) g(i);

CREATE TABLE customer_demographics AS
SELECT (row_number() OVER (ORDER BY g, m, e, cr))::INTEGER AS cd_demo_sk, g AS cd_gender, m AS cd_marital_status, e AS cd_education_status,
  (500 + 500 * r(g || m || e || cr, 'pe', 20))::INTEGER AS cd_purchase_estimate, cr AS cd_credit_rating,
  r(g || m || e || cr, 'dep', 7)::INTEGER AS cd_dep_count, r(g || m || e || cr, 'emp', 7)::INTEGER AS cd_dep_employed_count,
  r(g || m || e || cr, 'col', 7)::INTEGER AS cd_dep_college_count
FROM unnest(['M', 'F']) a(g), unnest(['M', 'S', 'D', 'W', 'U']) b(m),
  unnest(['Primary', 'Secondary', 'College', '2 yr Degree', '4 yr Degree', 'Advanced Degree', 'Unknown']) c(e),
  unnest(['Good', 'High Risk', 'Low Risk', 'Unknown']) d(cr);

CREATE TABLE income_band AS
SELECT i::INTEGER AS ib_income_band_sk, ((i - 1) * 10000 + CASE WHEN i = 1 THEN 0 ELSE 1 END)::INTEGER AS ib_lower_bound, (i * 10000)::INTEGER AS ib_upper_bound
FROM range(1, 21) g(i);

CREATE TABLE household_demographics AS
SELECT i::INTEGER AS hd_demo_sk, (r(i, 'ib', 20) + 1)::INTEGER AS hd_income_band_sk,
  ['>10000', '5001-10000', '1001-5000', '501-1000', '0-500', 'Unknown'][i % 6 + 1] AS hd_buy_potential,
  (i // 6 % 10)::INTEGER AS hd_dep_count, (i // 60 % 6 - 1)::INTEGER AS hd_vehicle_count
FROM range(1, 361) g(i);

CREATE TABLE customer AS
SELECT i::INTEGER AS c_customer_sk, id(i) AS c_customer_id, k(i, 'cd', 280) AS c_current_cdemo_sk, k(i, 'hd', 360) AS c_current_hdemo_sk,
  k(i, 'ca', 250) AS c_current_addr_sk, (2450815 + r(i, 'fs', 1800))::INTEGER AS c_first_shipto_date_sk,
  (2450815 + r(i, 'fsd', 1800))::INTEGER AS c_first_sales_date_sk,
  pick(i, 'sal', ['Mr.', 'Mrs.', 'Ms.', 'Dr.', 'Sir', 'Miss']) AS c_salutation,
  pick(i, 'fn', ['James', 'Mary', 'John', 'Patricia', 'Robert', 'Linda', 'Michael', 'Barbara', 'William', 'Elizabeth']) AS c_first_name,
  pick(i, 'ln', ['Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez', 'Hernandez', 'Lopez']) AS c_last_name,
  pick(i, 'pf', ['Y', 'N']) AS c_preferred_cust_flag, (r(i, 'bd', 28) + 1)::INTEGER AS c_birth_day, (r(i, 'bm', 12) + 1)::INTEGER AS c_birth_month,
  (1924 + r(i, 'by', 69))::INTEGER AS c_birth_year, pick(i, 'bc', ['UNITED STATES', 'CANADA', 'MEXICO', 'GERMANY', 'JAPAN']) AS c_birth_country,
  NULL::VARCHAR AS c_login, 'c' || i || '@example.com' AS c_email_address, (2450815 + r(i, 'lr', 1800))::INTEGER AS c_last_review_date_sk
FROM range(1, 501) g(i);

CREATE TABLE store AS
SELECT i::INTEGER AS s_store_sk, id(i) AS s_store_id, DATE '1997-03-13' AS s_rec_start_date, NULL::DATE AS s_rec_end_date,
  NULL::INTEGER AS s_closed_date_sk, ['able', 'ought', 'ese', 'anti', 'cally', 'bar'][i] AS s_store_name,
  (200 + r(i, 'emp', 100))::INTEGER AS s_number_employees, (5000000 + r(i, 'fl', 5000000))::INTEGER AS s_floor_space,
  '8AM-4PM' AS s_hours, 'Manager ' || i AS s_manager, (r(i, 'mk', 10) + 1)::INTEGER AS s_market_id, 'Unknown' AS s_geography_class,
  'market description ' || i AS s_market_desc, 'Market manager ' || i AS s_market_manager, 1::INTEGER AS s_division_id,
  'Unknown' AS s_division_name, 1::INTEGER AS s_company_id, 'Unknown' AS s_company_name, (r(i, 'n', 999) + 1)::VARCHAR AS s_street_number,
  'Main Street' AS s_street_name, 'Ave' AS s_street_type, 'Suite ' || i AS s_suite_number,
  ['Midway', 'Fairview', 'Midway', 'Fairview', 'Oak Grove', 'Five Points'][i] AS s_city, 'Williamson County' AS s_county,
  'TN' AS s_state, ['31904', '35709', '31904', '35709', '37411', '38322'][i] AS s_zip, 'United States' AS s_country,
  (-5)::DECIMAL(5,2) AS s_gmt_offset, (0.01 * (i % 12))::DECIMAL(5,2) AS s_tax_precentage
FROM range(1, 7) g(i);

CREATE TABLE promotion AS
SELECT i::INTEGER AS p_promo_sk, id(i) AS p_promo_id, (2450815 + r(i, 'ps', 1800))::INTEGER AS p_start_date_sk,
  (2450815 + r(i, 'ps', 1800) + 30)::INTEGER AS p_end_date_sk, (r(i, 'pi', 200) + 1)::INTEGER AS p_item_sk,
  (1000)::DECIMAL(15,2) AS p_cost, 1::INTEGER AS p_response_target, pick(i, 'pn', ['ought', 'able', 'pri', 'ese', 'anti']) AS p_promo_name,
  pick(i, 'dm', ['Y', 'N']) AS p_channel_dmail, pick(i, 'em', ['Y', 'N']) AS p_channel_email, pick(i, 'ca', ['Y', 'N']) AS p_channel_catalog,
  pick(i, 'tv', ['Y', 'N']) AS p_channel_tv, pick(i, 'ra', ['Y', 'N']) AS p_channel_radio, pick(i, 'pr', ['Y', 'N']) AS p_channel_press,
  pick(i, 'ev', ['Y', 'N']) AS p_channel_event, pick(i, 'de', ['Y', 'N']) AS p_channel_demo, 'details ' || i AS p_channel_details,
  'Unknown' AS p_purpose, 'N' AS p_discount_active
FROM range(1, 31) g(i);

CREATE TABLE reason AS
SELECT i::INTEGER AS r_reason_sk, id(i) AS r_reason_id,
  ['Package was damaged', 'Stopped working', 'Did not get it on time', 'Not the product that was ordred', 'Parts missing',
   'Does not work with a product that I have', 'Gift exchange', 'Did not like the color', 'Did not like the model', 'Did not like the make',
   'reason 28', 'unauthoized purchase', 'duplicate purchase', 'its is a boy', 'found a better price in a store'][i] AS r_reason_desc
FROM range(1, 16) g(i);

CREATE TABLE ship_mode AS
SELECT i::INTEGER AS sm_ship_mode_sk, id(i) AS sm_ship_mode_id,
  ['REGULAR', 'EXPRESS', 'NEXT DAY', 'OVERNIGHT', 'TWO DAY', 'LIBRARY'][(i - 1) // 4 + 1] AS sm_type,
  ['AIR', 'SURFACE', 'SEA', 'BIKE'][(i - 1) % 4 + 1] AS sm_code,
  ['UPS', 'FEDEX', 'AIRBORNE', 'USPS', 'DHL', 'TBS', 'ZHOU', 'ZOUROS', 'MSC', 'LATVIAN', 'ALLIANCE', 'ORIENTAL', 'BARIAN', 'BOXBUNDLES', 'GREAT EASTERN', 'DIAMOND', 'RUPEKSA', 'GERMA', 'HARMSTORF', 'PRIVATECARRIER'][i] AS sm_carrier,
  'contract ' || i AS sm_contract
FROM range(1, 21) g(i);

CREATE TABLE warehouse AS
SELECT i::INTEGER AS w_warehouse_sk, id(i) AS w_warehouse_id,
  ['Conventional childr', 'Important issues liv', 'Doors canno', 'Bad cards must make.', 'Operations'][i] AS w_warehouse_name,
  (100000 + r(i, 'sq', 900000))::INTEGER AS w_warehouse_sq_ft, (r(i, 'n', 999) + 1)::VARCHAR AS w_street_number, 'Main Street' AS w_street_name,
  'Ave' AS w_street_type, 'Suite ' || i AS w_suite_number, pick(i, 'city', cities()) AS w_city, 'Williamson County' AS w_county,
  'TN' AS w_state, '31904' AS w_zip, 'United States' AS w_country, (-5)::DECIMAL(5,2) AS w_gmt_offset
FROM range(1, 6) g(i);

CREATE TABLE call_center AS
SELECT i::INTEGER AS cc_call_center_sk, id(i) AS cc_call_center_id, DATE '1998-01-01' AS cc_rec_start_date, NULL::DATE AS cc_rec_end_date,
  NULL::INTEGER AS cc_closed_date_sk, 2450815::INTEGER AS cc_open_date_sk,
  ['NY Metro', 'Mid Atlantic', 'Mid Atlantic', 'North Midwest'][i] AS cc_name, ['large', 'medium', 'medium', 'small'][i] AS cc_class,
  (1000 * i)::INTEGER AS cc_employees, (10000 * i)::INTEGER AS cc_sq_ft, '8AM-4PM' AS cc_hours,
  ['Bob Belcher', 'Felipe Perkins', 'Mark Hightower', 'Larry Mccray'][i] AS cc_manager, i::INTEGER AS cc_mkt_id, 'class ' || i AS cc_mkt_class,
  'description ' || i AS cc_mkt_desc, 'Market manager ' || i AS cc_market_manager, i::INTEGER AS cc_division, 'division ' || i AS cc_division_name,
  i::INTEGER AS cc_company, 'company ' || i AS cc_company_name, (100 + i)::VARCHAR AS cc_street_number, 'Main' AS cc_street_name, 'Street' AS cc_street_type,
  'Suite ' || i AS cc_suite_number, 'Midway' AS cc_city, 'Williamson County' AS cc_county, 'TN' AS cc_state, '31904' AS cc_zip,
  'United States' AS cc_country, (-5)::DECIMAL(5,2) AS cc_gmt_offset, 0.11::DECIMAL(5,2) AS cc_tax_percentage
FROM range(1, 5) g(i);

CREATE TABLE catalog_page AS
SELECT i::INTEGER AS cp_catalog_page_sk, id(i) AS cp_catalog_page_id, (2450815 + 30 * (i - 1))::INTEGER AS cp_start_date_sk,
  (2450815 + 30 * i)::INTEGER AS cp_end_date_sk, 'DEPARTMENT' AS cp_department, ((i - 1) // 10 + 1)::INTEGER AS cp_catalog_number,
  ((i - 1) % 10 + 1)::INTEGER AS cp_catalog_page_number, 'page ' || i AS cp_description,
  ['bi-annual', 'quarterly', 'monthly'][i % 3 + 1] AS cp_type
FROM range(1, 51) g(i);

CREATE TABLE web_site AS
SELECT i::INTEGER AS web_site_sk, id(i) AS web_site_id, DATE '1997-08-16' AS web_rec_start_date, NULL::DATE AS web_rec_end_date,
  'site_' || (i - 1) AS web_name, 2450815::INTEGER AS web_open_date_sk, NULL::INTEGER AS web_close_date_sk, 'Unknown' AS web_class,
  'Manager ' || i AS web_manager, i::INTEGER AS web_mkt_id, 'class ' || i AS web_mkt_class, 'description ' || i AS web_mkt_desc,
  'Market manager ' || i AS web_market_manager, i::INTEGER AS web_company_id, ['pri', 'ought', 'able', 'ese', 'anti', 'cally'][i] AS web_company_name,
  (100 + i)::VARCHAR AS web_street_number, 'Main' AS web_street_name, 'Street' AS web_street_type, 'Suite ' || i AS web_suite_number,
  'Midway' AS web_city, 'Williamson County' AS web_county, 'TN' AS web_state, '31904' AS web_zip, 'United States' AS web_country,
  (-5)::DECIMAL(5,2) AS web_gmt_offset, 0.05::DECIMAL(5,2) AS web_tax_percentage
FROM range(1, 7) g(i);

CREATE TABLE web_page AS
SELECT i::INTEGER AS wp_web_page_sk, id(i) AS wp_web_page_id, DATE '1997-09-03' AS wp_rec_start_date, NULL::DATE AS wp_rec_end_date,
  (2450815 + r(i, 'cr', 100))::INTEGER AS wp_creation_date_sk, (2450815 + r(i, 'ac', 100))::INTEGER AS wp_access_date_sk,
  pick(i, 'ag', ['Y', 'N']) AS wp_autogen_flag, k(i, 'cu', 500) AS wp_customer_sk, 'http://www.foo.com' AS wp_url,
  pick(i, 'ty', ['welcome', 'protected', 'feedback', 'general', 'ad', 'order', 'dynamic']) AS wp_type,
  (1000 + r(i, 'cc', 7000))::INTEGER AS wp_char_count, (2 + r(i, 'lc', 24))::INTEGER AS wp_link_count,
  (1 + r(i, 'ic', 7))::INTEGER AS wp_image_count, r(i, 'ma', 5)::INTEGER AS wp_max_ad_count
FROM range(1, 61) g(i);

CREATE TABLE inventory AS
SELECT (2451179 + 7 * w)::INTEGER AS inv_date_sk, it::INTEGER AS inv_item_sk, wh::INTEGER AS inv_warehouse_sk,
  CASE WHEN r(w * 100000 + it * 10 + wh, 'q', 20) = 0 THEN NULL ELSE r(w * 100000 + it * 10 + wh, 'qq', 1000) END::INTEGER AS inv_quantity_on_hand
FROM range(0, 105) a(w), range(1, 101) b(it), range(1, 4) c(wh);

-- Sales: one row per line, tickets and orders of three lines.
CREATE TABLE store_sales AS
WITH s AS (
  SELECT i, (r(i, 'qty', 100) + 1) AS qty, money(i, 'wc', 1, 100) AS wc, 1 + r(i, 'lp', 100) / 100.0 AS markup, r(i, 'sp', 100) / 100.0 AS off
  FROM range(1, 20001) g(i))
SELECT k(i, 'sd', 1826) + 2450814 AS ss_sold_date_sk, k(i, 'st', 1440) * 60 AS ss_sold_time_sk,
  (r(i, 'it', 200) + 1)::INTEGER AS ss_item_sk, k(i // 3, 'cu', 500) AS ss_customer_sk, k(i, 'cd', 280) AS ss_cdemo_sk,
  k(i, 'hd', 360) AS ss_hdemo_sk, k(i // 3, 'ad', 250) AS ss_addr_sk, k(i // 3, 'so', 6) AS ss_store_sk, k(i, 'pr', 30) AS ss_promo_sk,
  (i // 3 + 1)::INTEGER AS ss_ticket_number, qty::INTEGER AS ss_quantity, wc AS ss_wholesale_cost,
  (wc * markup)::DECIMAL(7,2) AS ss_list_price, (wc * markup * (1 - off))::DECIMAL(7,2) AS ss_sales_price,
  (qty * wc * markup * off)::DECIMAL(7,2) AS ss_ext_discount_amt, (qty * wc * markup * (1 - off))::DECIMAL(7,2) AS ss_ext_sales_price,
  (qty * wc)::DECIMAL(7,2) AS ss_ext_wholesale_cost, (qty * wc * markup)::DECIMAL(7,2) AS ss_ext_list_price,
  (qty * wc * markup * (1 - off) * 0.05)::DECIMAL(7,2) AS ss_ext_tax, (CASE WHEN i % 7 = 0 THEN qty * wc * 0.1 ELSE 0 END)::DECIMAL(7,2) AS ss_coupon_amt,
  (qty * wc * markup * (1 - off))::DECIMAL(7,2) AS ss_net_paid, (qty * wc * markup * (1 - off) * 1.05)::DECIMAL(7,2) AS ss_net_paid_inc_tax,
  (qty * wc * markup * (1 - off) - qty * wc)::DECIMAL(7,2) AS ss_net_profit
FROM s;

CREATE TABLE store_returns AS
SELECT ss_sold_date_sk + 1 + r(ss_ticket_number * 10 + ss_item_sk, 'rd', 60) AS sr_returned_date_sk, ss_sold_time_sk AS sr_return_time_sk,
  ss_item_sk AS sr_item_sk, ss_customer_sk AS sr_customer_sk, ss_cdemo_sk AS sr_cdemo_sk, ss_hdemo_sk AS sr_hdemo_sk, ss_addr_sk AS sr_addr_sk,
  ss_store_sk AS sr_store_sk, k(ss_ticket_number * 10 + ss_item_sk, 're', 15) AS sr_reason_sk, ss_ticket_number AS sr_ticket_number,
  greatest(1, ss_quantity // 2)::INTEGER AS sr_return_quantity, (ss_sales_price * greatest(1, ss_quantity // 2))::DECIMAL(7,2) AS sr_return_amt,
  (ss_sales_price * greatest(1, ss_quantity // 2) * 0.05)::DECIMAL(7,2) AS sr_return_tax,
  (ss_sales_price * greatest(1, ss_quantity // 2) * 1.05)::DECIMAL(7,2) AS sr_return_amt_inc_tax, 5.00::DECIMAL(7,2) AS sr_fee,
  (ss_quantity * 0.5)::DECIMAL(7,2) AS sr_return_ship_cost, (ss_sales_price * greatest(1, ss_quantity // 2) * 0.5)::DECIMAL(7,2) AS sr_refunded_cash,
  0::DECIMAL(7,2) AS sr_reversed_charge, (ss_sales_price * greatest(1, ss_quantity // 2) * 0.5)::DECIMAL(7,2) AS sr_store_credit,
  (ss_sales_price * 0.3 + 5)::DECIMAL(7,2) AS sr_net_loss
FROM store_sales WHERE r(ss_ticket_number * 10 + ss_item_sk, 'ret', 8) = 0 AND ss_sold_date_sk IS NOT NULL;

CREATE TABLE catalog_sales AS
WITH s AS (
  SELECT i, (r(i, 'qty', 100) + 1) AS qty, money(i, 'wc', 1, 100) AS wc, 1 + r(i, 'lp', 100) / 100.0 AS markup, r(i, 'sp', 100) / 100.0 AS off,
    k(i, 'sd', 1826) + 2450814 AS sold
  FROM range(1, 10001) g(i))
SELECT sold AS cs_sold_date_sk, k(i, 'st', 1440) * 60 AS cs_sold_time_sk, sold + 2 + r(i, 'sh', 90) AS cs_ship_date_sk,
  k(i // 3, 'cu', 500) AS cs_bill_customer_sk, k(i, 'cd', 280) AS cs_bill_cdemo_sk, k(i, 'hd', 360) AS cs_bill_hdemo_sk,
  k(i // 3, 'ad', 250) AS cs_bill_addr_sk, k(i // 3, 'scu', 500) AS cs_ship_customer_sk, k(i, 'scd', 280) AS cs_ship_cdemo_sk,
  k(i, 'shd', 360) AS cs_ship_hdemo_sk, k(i // 3, 'sad', 250) AS cs_ship_addr_sk, k(i // 3, 'cc', 4) AS cs_call_center_sk,
  k(i, 'cp', 50) AS cs_catalog_page_sk, k(i, 'sm', 20) AS cs_ship_mode_sk, k(i, 'wh', 5) AS cs_warehouse_sk,
  (r(i, 'it', 200) + 1)::INTEGER AS cs_item_sk, k(i, 'pr', 30) AS cs_promo_sk, (i // 3 + 1)::INTEGER AS cs_order_number,
  qty::INTEGER AS cs_quantity, wc AS cs_wholesale_cost, (wc * markup)::DECIMAL(7,2) AS cs_list_price,
  (wc * markup * (1 - off))::DECIMAL(7,2) AS cs_sales_price, (qty * wc * markup * off)::DECIMAL(7,2) AS cs_ext_discount_amt,
  (qty * wc * markup * (1 - off))::DECIMAL(7,2) AS cs_ext_sales_price, (qty * wc)::DECIMAL(7,2) AS cs_ext_wholesale_cost,
  (qty * wc * markup)::DECIMAL(7,2) AS cs_ext_list_price, (qty * wc * markup * (1 - off) * 0.05)::DECIMAL(7,2) AS cs_ext_tax,
  (CASE WHEN i % 7 = 0 THEN qty * wc * 0.1 ELSE 0 END)::DECIMAL(7,2) AS cs_coupon_amt, (qty * 0.75)::DECIMAL(7,2) AS cs_ext_ship_cost,
  (qty * wc * markup * (1 - off))::DECIMAL(7,2) AS cs_net_paid, (qty * wc * markup * (1 - off) * 1.05)::DECIMAL(7,2) AS cs_net_paid_inc_tax,
  (qty * wc * markup * (1 - off) + qty * 0.75)::DECIMAL(7,2) AS cs_net_paid_inc_ship,
  (qty * wc * markup * (1 - off) * 1.05 + qty * 0.75)::DECIMAL(7,2) AS cs_net_paid_inc_ship_tax,
  (qty * wc * markup * (1 - off) - qty * wc)::DECIMAL(7,2) AS cs_net_profit
FROM s;

CREATE TABLE catalog_returns AS
SELECT cs_sold_date_sk + 1 + r(cs_order_number * 1000 + cs_item_sk, 'rd', 60) AS cr_returned_date_sk, cs_sold_time_sk AS cr_returned_time_sk,
  cs_item_sk AS cr_item_sk, cs_bill_customer_sk AS cr_refunded_customer_sk, cs_bill_cdemo_sk AS cr_refunded_cdemo_sk,
  cs_bill_hdemo_sk AS cr_refunded_hdemo_sk, cs_bill_addr_sk AS cr_refunded_addr_sk, cs_ship_customer_sk AS cr_returning_customer_sk,
  cs_ship_cdemo_sk AS cr_returning_cdemo_sk, cs_ship_hdemo_sk AS cr_returning_hdemo_sk, cs_ship_addr_sk AS cr_returning_addr_sk,
  cs_call_center_sk AS cr_call_center_sk, cs_catalog_page_sk AS cr_catalog_page_sk, cs_ship_mode_sk AS cr_ship_mode_sk,
  cs_warehouse_sk AS cr_warehouse_sk, k(cs_order_number * 1000 + cs_item_sk, 're', 15) AS cr_reason_sk, cs_order_number AS cr_order_number,
  greatest(1, cs_quantity // 2)::INTEGER AS cr_return_quantity, (cs_sales_price * greatest(1, cs_quantity // 2))::DECIMAL(7,2) AS cr_return_amount,
  (cs_sales_price * greatest(1, cs_quantity // 2) * 0.05)::DECIMAL(7,2) AS cr_return_tax,
  (cs_sales_price * greatest(1, cs_quantity // 2) * 1.05)::DECIMAL(7,2) AS cr_return_amt_inc_tax, 5.00::DECIMAL(7,2) AS cr_fee,
  (cs_quantity * 0.5)::DECIMAL(7,2) AS cr_return_ship_cost, (cs_sales_price * greatest(1, cs_quantity // 2) * 0.5)::DECIMAL(7,2) AS cr_refunded_cash,
  0::DECIMAL(7,2) AS cr_reversed_charge, (cs_sales_price * greatest(1, cs_quantity // 2) * 0.5)::DECIMAL(7,2) AS cr_store_credit,
  (cs_sales_price * 0.3 + 5)::DECIMAL(7,2) AS cr_net_loss
FROM catalog_sales WHERE r(cs_order_number * 1000 + cs_item_sk, 'ret', 8) = 0 AND cs_sold_date_sk IS NOT NULL;

CREATE TABLE web_sales AS
WITH s AS (
  SELECT i, (r(i, 'qty', 100) + 1) AS qty, money(i, 'wc', 1, 100) AS wc, 1 + r(i, 'lp', 100) / 100.0 AS markup, r(i, 'sp', 100) / 100.0 AS off,
    k(i, 'sd', 1826) + 2450814 AS sold
  FROM range(1, 5001) g(i))
SELECT sold AS ws_sold_date_sk, k(i, 'st', 1440) * 60 AS ws_sold_time_sk, sold + 2 + r(i, 'sh', 120) AS ws_ship_date_sk,
  (r(i, 'it', 200) + 1)::INTEGER AS ws_item_sk, k(i // 3, 'cu', 500) AS ws_bill_customer_sk, k(i, 'cd', 280) AS ws_bill_cdemo_sk,
  k(i, 'hd', 360) AS ws_bill_hdemo_sk, k(i // 3, 'ad', 250) AS ws_bill_addr_sk, k(i // 3, 'scu', 500) AS ws_ship_customer_sk,
  k(i, 'scd', 280) AS ws_ship_cdemo_sk, k(i, 'shd', 360) AS ws_ship_hdemo_sk, k(i // 3, 'sad', 250) AS ws_ship_addr_sk,
  k(i, 'wp', 60) AS ws_web_page_sk, k(i // 3, 'ws', 6) AS ws_web_site_sk, k(i, 'sm', 20) AS ws_ship_mode_sk, k(i, 'wh', 5) AS ws_warehouse_sk,
  k(i, 'pr', 30) AS ws_promo_sk, (i // 3 + 1)::INTEGER AS ws_order_number, qty::INTEGER AS ws_quantity, wc AS ws_wholesale_cost,
  (wc * markup)::DECIMAL(7,2) AS ws_list_price, (wc * markup * (1 - off))::DECIMAL(7,2) AS ws_sales_price,
  (qty * wc * markup * off)::DECIMAL(7,2) AS ws_ext_discount_amt, (qty * wc * markup * (1 - off))::DECIMAL(7,2) AS ws_ext_sales_price,
  (qty * wc)::DECIMAL(7,2) AS ws_ext_wholesale_cost, (qty * wc * markup)::DECIMAL(7,2) AS ws_ext_list_price,
  (qty * wc * markup * (1 - off) * 0.05)::DECIMAL(7,2) AS ws_ext_tax, (CASE WHEN i % 7 = 0 THEN qty * wc * 0.1 ELSE 0 END)::DECIMAL(7,2) AS ws_coupon_amt,
  (qty * 0.75)::DECIMAL(7,2) AS ws_ext_ship_cost, (qty * wc * markup * (1 - off))::DECIMAL(7,2) AS ws_net_paid,
  (qty * wc * markup * (1 - off) * 1.05)::DECIMAL(7,2) AS ws_net_paid_inc_tax, (qty * wc * markup * (1 - off) + qty * 0.75)::DECIMAL(7,2) AS ws_net_paid_inc_ship,
  (qty * wc * markup * (1 - off) * 1.05 + qty * 0.75)::DECIMAL(7,2) AS ws_net_paid_inc_ship_tax,
  (qty * wc * markup * (1 - off) - qty * wc)::DECIMAL(7,2) AS ws_net_profit
FROM s;

CREATE TABLE web_returns AS
SELECT ws_sold_date_sk + 1 + r(ws_order_number * 1000 + ws_item_sk, 'rd', 60) AS wr_returned_date_sk, ws_sold_time_sk AS wr_returned_time_sk,
  ws_item_sk AS wr_item_sk, ws_bill_customer_sk AS wr_refunded_customer_sk, ws_bill_cdemo_sk AS wr_refunded_cdemo_sk,
  ws_bill_hdemo_sk AS wr_refunded_hdemo_sk, ws_bill_addr_sk AS wr_refunded_addr_sk, ws_ship_customer_sk AS wr_returning_customer_sk,
  ws_ship_cdemo_sk AS wr_returning_cdemo_sk, ws_ship_hdemo_sk AS wr_returning_hdemo_sk, ws_ship_addr_sk AS wr_returning_addr_sk,
  ws_web_page_sk AS wr_web_page_sk, k(ws_order_number * 1000 + ws_item_sk, 're', 15) AS wr_reason_sk, ws_order_number AS wr_order_number,
  greatest(1, ws_quantity // 2)::INTEGER AS wr_return_quantity, (ws_sales_price * greatest(1, ws_quantity // 2))::DECIMAL(7,2) AS wr_return_amt,
  (ws_sales_price * greatest(1, ws_quantity // 2) * 0.05)::DECIMAL(7,2) AS wr_return_tax,
  (ws_sales_price * greatest(1, ws_quantity // 2) * 1.05)::DECIMAL(7,2) AS wr_return_amt_inc_tax, 5.00::DECIMAL(7,2) AS wr_fee,
  (ws_quantity * 0.5)::DECIMAL(7,2) AS wr_return_ship_cost, (ws_sales_price * greatest(1, ws_quantity // 2) * 0.5)::DECIMAL(7,2) AS wr_refunded_cash,
  0::DECIMAL(7,2) AS wr_reversed_charge, (ws_sales_price * greatest(1, ws_quantity // 2) * 0.5)::DECIMAL(7,2) AS wr_account_credit,
  (ws_sales_price * 0.3 + 5)::DECIMAL(7,2) AS wr_net_loss
FROM web_sales WHERE r(ws_order_number * 1000 + ws_item_sk, 'ret', 8) = 0 AND ws_sold_date_sk IS NOT NULL;
