package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// dbtFixture is a dbt project of testdata/dbt, as a path from this package.
func dbtFixture(name string) string {
	return filepath.Join("..", "..", "..", "testdata", "dbt", name)
}

// TestInitFromDbtJinja converts public dbt projects whose models use Jinja
// beyond ref and source (jaffle_shop's payment-method loop, dbt_utils's
// macros from an installed package, project macros with dispatch, return,
// caller and loops): each converts with nothing left to a human (exit 0),
// plans clean, applies on DuckDB, and serves the rows the dbt-compiled SQL
// gives when run in DuckDB straight over the seeds' CSV files.
func TestInitFromDbtJinja(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2024-03-08T00:00:00Z")
	type check struct{ model, columns, compiled string }
	orders := func(seeds string) string {
		// jaffle_shop's orders.sql as dbt compiles it.
		return `with orders as (
  select id as order_id, user_id as customer_id, order_date, status from read_csv('` + seeds + `/raw_orders.csv')
), payments as (
  select id as payment_id, order_id, payment_method, amount / 100 as amount from read_csv('` + seeds + `/raw_payments.csv')
), order_payments as (
  select order_id,
    sum(case when payment_method = 'credit_card' then amount else 0 end) as credit_card_amount,
    sum(case when payment_method = 'coupon' then amount else 0 end) as coupon_amount,
    sum(case when payment_method = 'bank_transfer' then amount else 0 end) as bank_transfer_amount,
    sum(case when payment_method = 'gift_card' then amount else 0 end) as gift_card_amount,
    sum(amount) as total_amount
  from payments group by order_id
)
select orders.order_id, orders.customer_id, orders.order_date, orders.status,
  order_payments.credit_card_amount, order_payments.coupon_amount,
  order_payments.bank_transfer_amount, order_payments.gift_card_amount,
  order_payments.total_amount as amount
from orders left join order_payments on orders.order_id = order_payments.order_id`
	}
	jaffle := func(name string) []check {
		seeds, _ := filepath.Abs(filepath.Join(dbtFixture(name), "seeds"))
		return []check{{"jaffle_shop.orders",
			"order_id,customer_id,order_date,status,credit_card_amount,coupon_amount,bank_transfer_amount,gift_card_amount,amount",
			orders(seeds)}}
	}
	utils, _ := filepath.Abs(filepath.Join(dbtFixture("dbt_utils"), "data", "sql"))
	shop, _ := filepath.Abs(filepath.Join(dbtFixture("shop_macros"), "seeds"))
	pay := "read_csv('" + shop + "/raw_payments.csv')"
	cross, _ := filepath.Abs(filepath.Join(dbtFixture("cross_db"), "seeds"))
	pc, _ := filepath.Abs(dbtFixture("project_config"))
	// stg_orders as dbt-duckdb compiles it: dbt's cross-database macros
	// resolved to their duckdb__ implementations, else default__.
	stg := `select id as order_id, cast(customer_id as int) as customer_id, cast(ordered_at as timestamp) as ordered_at,
	  date_trunc('day', ordered_at) as ordered_on, date_trunc('month', ordered_at) as ordered_month,
	  (date_trunc('day', ordered_at) + cast(30 as bigint) * interval 1 day) as due_on,
	  cast(amount_cents as numeric(28,6)) / 100 as amount, cast(amount_cents as text) as amount_text,
	  cast(is_paid as text) as paid_text, string_split(items, ',')[1] as first_item,
	  'order-' || id as order_code, md5(cast(id as text)) as order_hash
	from read_csv('` + cross + `/raw_orders.csv') where cast(ordered_at as timestamp) <= now()`
	cases := []struct {
		fixture string
		checks  []check
		audits  string // the summary of efmesh audit dev: every dbt test, as an audit
	}{
		{"jaffle_shop", jaffle("jaffle_shop"), "20 passed, 0 failed, 0 warned, 0 error(s), 0 skipped."},
		{"jaffle_shop_duckdb", jaffle("jaffle_shop_duckdb"), "20 passed, 0 failed, 0 warned, 0 error(s), 0 skipped."},
		{"dbt_utils", []check{
			{"sql.test_star", "field_1,field_2",
				"select field_1, field_2 from read_csv('" + utils + "/data_star.csv')"},
			{"sql.test_generate_surrogate_key", "actual_column_1_only,expected_column_1_only,actual_all_columns_list,expected_all_columns",
				`select md5(cast(coalesce(cast(column_1 as varchar), '_dbt_utils_surrogate_key_null_') as varchar)), expected_column_1_only,
				 md5(cast(coalesce(cast(column_1 as varchar), '_dbt_utils_surrogate_key_null_') || '-' || coalesce(cast(column_2 as varchar), '_dbt_utils_surrogate_key_null_') || '-' || coalesce(cast(column_3 as varchar), '_dbt_utils_surrogate_key_null_') as varchar)), expected_all_columns
				 from read_csv('` + utils + `/data_generate_surrogate_key.csv')`},
			{"sql.test_safe_divide", "actual,expected",
				`select (numerator) / nullif((denominator), 0), output from read_csv('` + utils + `/data_safe_divide.csv')
				 union all select (numerator_1 * numerator_2) / nullif((denominator), 0), output from read_csv('` + utils + `/data_safe_divide_numerator_expressions.csv')
				 union all select (numerator) / nullif((denominator_1 * denominator_2), 0), output from read_csv('` + utils + `/data_safe_divide_denominator_expressions.csv')`},
			{"sql.test_deduplicate", "user_id,event,version",
				`select * from read_csv('` + utils + `/data_deduplicate.csv') where user_id = 1 qualify row_number() over (partition by user_id order by version desc) = 1`},
			{"sql.test_pivot", "size,red,blue",
				`select size, sum(case when color = 'red' then 1 else 0 end) as "red", sum(case when color = 'blue' then 1 else 0 end) as "blue"
				 from read_csv('` + utils + `/data_pivot.csv') group by size`},
		}, ""},
		{"cross_db", []check{
			{"cross_db.stg_orders", "order_id,customer_id,ordered_at,ordered_on,ordered_month,due_on,amount,amount_text,paid_text,first_item,order_code,order_hash", stg},
			{"cross_db.customer_orders", "customer_id,orders,order_codes,active_days,active_weeks,has_month,last_month_end",
				`select customer_id, count(*) as orders, string_agg(order_code, ', ' order by order_id) as order_codes,
				   (date_diff('day', min(ordered_on)::timestamp, max(ordered_on)::timestamp)) as active_days,
				   ((date_diff('day', min(ordered_on)::timestamp, max(ordered_on)::timestamp)) // 7 + case
				     when date_part('dow', (min(ordered_on))::timestamp) <= date_part('dow', (max(ordered_on))::timestamp)
				     then case when min(ordered_on) <= max(ordered_on) then 0 else -1 end
				     else case when min(ordered_on) <= max(ordered_on) then 1 else 0 end end) as active_weeks,
				   arbitrary(ordered_month) is not null as has_month,
				   cast(((date_trunc('month', max(ordered_on)) + cast(1 as bigint) * interval 1 month) + cast(-1 as bigint) * interval 1 day) as date) as last_month_end
				 from (` + stg + `) group by customer_id`},
		}, "11 passed, 0 failed, 1 warned, 0 error(s), 0 skipped."},
		// generate_schema_name names every model (main, main_analytics,
		// raw), +enabled from a var leaves a seed folder out, and the
		// source's external_location names its {identifier}.
		{"project_config", []check{
			{"main_analytics.revenue_by_country", "country,revenue",
				`select c.name as country, sum(o.amount) as revenue
				 from read_csv('` + pc + `/data/orders_2026.csv', columns = {'order_id': 'integer', 'country': 'varchar', 'amount': 'decimal(10,2)'}) as o
				 join read_csv('` + pc + `/seeds/countries.csv') as c on c.code = o.country group by c.name`},
		}, ""},
		{"shop_macros", []check{
			{"shop.order_payments", "order_id,credit_card_amount,coupon_amount,bank_transfer_amount,gift_card_amount,total_amount,payments",
				`select order_id,
				   sum(case when payment_method = 'credit_card' then round(cast(amount as decimal(16, 4)) / 100, 2) else 0 end) as credit_card_amount,
				   sum(case when payment_method = 'coupon' then round(cast(amount as decimal(16, 4)) / 100, 2) else 0 end) as coupon_amount,
				   sum(case when payment_method = 'bank_transfer' then round(cast(amount as decimal(16, 4)) / 100, 2) else 0 end) as bank_transfer_amount,
				   sum(case when payment_method = 'gift_card' then round(cast(amount as decimal(16, 4)) / 100, 2) else 0 end) as gift_card_amount,
				   round(cast(sum(amount) as decimal(16, 4)) / 100, 3) as total_amount, count(*) as payments
				 from ` + pay + ` where amount > 0 group by order_id`},
			{"shop.big_payments", "id,order_id,amount,dollars",
				`select * from (select id, order_id, amount, round(cast(amount as decimal(16, 4)) / 100, 2) as dollars from ` + pay + `) as q where amount >= 100`},
			{"shop.payment_events", "id,order_id,created_at,is_coupon,is_gift_card,dollars",
				`select id, order_id, created_at, payment_method = 'coupon' as is_coupon, payment_method = 'gift_card' as is_gift_card,
				   round(cast(amount as decimal(16, 4)) / 100, 1) as dollars from ` + pay},
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "p")
			code, out, errs := run(t, ".", "init", dir, "--from-dbt", dbtFixture(c.fixture), "--start", "2024-03-01")
			if code != 0 {
				t.Fatalf("init --from-dbt: exit %d\n%s\n%s", code, out, errs)
			}
			planApplyReplan(t, dir)
			if c.audits != "" {
				code, out, errs := run(t, dir, "audit", "dev")
				if code != 0 || !strings.Contains(out, c.audits) {
					t.Errorf("audit dev: exit %d, want %q\n%s\n%s", code, c.audits, out, errs)
				}
			}
			for _, ch := range c.checks {
				got := mustRun(t, dir, "query", "--env", "dev", "--format", "csv", "--limit", "0", "SELECT * FROM @ref("+ch.model+") ORDER BY ALL")
				if first, _, _ := strings.Cut(got, "\n"); first != ch.columns {
					t.Errorf("%s: columns %s, want %s", ch.model, first, ch.columns)
				}
				want := mustRun(t, dir, "query", "--format", "csv", "--limit", "0", "SELECT * FROM ("+ch.compiled+") ORDER BY ALL")
				_, gotRows, _ := strings.Cut(got, "\n")
				_, wantRows, _ := strings.Cut(want, "\n")
				if gotRows != wantRows || strings.Count(gotRows, "\n") < 1 {
					t.Errorf("%s: rows differ from dbt's compiled SQL:\n got %s\nwant %s", ch.model, gotRows, wantRows)
				}
			}
		})
	}
}
