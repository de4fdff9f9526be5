package sqlmeshimport

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func pieces(res *Result) []string {
	var out []string
	for _, p := range res.Unconverted {
		out = append(out, p.String())
	}
	return out
}

// TestConvertChoices covers the mappings the public fixtures do not: a
// Postgres gateway, variables, every kind and its options, each built-in
// audit sqlmesh names, external tables with columns, a string in a comment
// that names a model, and what is reported.
func TestConvertChoices(t *testing.T) {
	from, to := t.TempDir(), t.TempDir()
	write(t, from, map[string]string{
		"config.yaml": `gateways:
  pg:
    connection: {type: postgres, host: db, port: 5433, user: etl, password: secret, database: wh}
default_gateway: pg
model_defaults: {dialect: postgres, start: '2024-01-01', cron: '@hourly', storage_format: parquet}
variables: {country: FR, floor: 3}
before_all: ["CREATE SCHEMA raw"]
`,
		"external_models.yaml": "- name: raw.events\n  columns: {id: int, at: timestamp, kind: text}\n- name: '\"db\".raw.users'\n  columns: {id: int}\n",
		"models/events.sql": `MODEL (
  name core.events,
  kind INCREMENTAL_BY_TIME_RANGE (time_column (at, '%Y-%m-%d'), batch_size 7, lookback 2),
  grains [id],
  tags [hot, 'pii'],
  audits (
    not_null(columns := (id, at)),
    unique_values(columns := [id, kind]),
    unique_combination_of_columns(columns := (id, at), blocking := false),
    accepted_values(column := kind, is_in := ('a', 'b')),
    number_of_rows_non_blocking(threshold := 10),
    forall(criteria := (id > 0, kind <> 'x')),
    accepted_range(column := kind, min_v := 'a', max_v := 'c', inclusive := false)
  ),
  physical_properties (fill = 1)
);

SELECT e.id, e.at, e.kind, 'FROM core.users' AS note -- FROM core.users
FROM raw.events AS e JOIN db.raw.users AS u ON u.id = e.id
WHERE e.at BETWEEN @start_dt AND @end_dt AND e.kind = @VAR('country');
`,
		"models/users.sql": `MODEL (name core.users, kind INCREMENTAL_BY_UNIQUE_KEY (unique_key (id), when_matched (WHEN MATCHED THEN UPDATE SET x = 1)), owner ana, description "All users");
@DEF(lim, 10);
SELECT id FROM core.events LEFT JOIN other.thing ON true LIMIT @lim`,
		"models/hist.sql": `MODEL (name core.hist, kind SCD_TYPE_2_BY_COLUMN (unique_key id, columns [*], invalidate_hard_deletes true));
SELECT * FROM core.users`,
		"models/hist2.sql": `MODEL (name core.hist2, kind SCD_TYPE_2_BY_COLUMN (unique_key id, columns [kind]));
SELECT {{ x }} FROM core.users`,
		"models/v.sql":   "MODEL (name core.v, kind VIEW, start '1 week ago');\nSELECT @start_epoch AS s FROM core.users",
		"models/off.sql": "MODEL (name core.off, enabled false);\nSELECT 1",
		"tests/t.yaml": `t1:
  model: core.users
  inputs:
    core.events: {rows: [{id: 1}, {id: 2}]}
  outputs:
    query: [{id: 1}, {id: 2}]
  vars: {start: 2024-01-01, end: 2024-01-02, execution_time: x}
`,
	})
	res, err := Convert(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Models {
		got = append(got, m.Name+" "+m.Kind)
	}
	want := []string{"core.events INCREMENTAL_BY_TIME_RANGE", "core.hist SCD_TYPE_2", "core.hist2 SCD_TYPE_2", "core.users INCREMENTAL_BY_UNIQUE_KEY",
		"core.v VIEW", "raw.events EXTERNAL", "raw.users EXTERNAL"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("models:\n got %q\nwant %q", got, want)
	}
	wantPieces := []string{
		"config.yaml:5:91: model default efmesh has no equivalent for: storage_format: parquet",
		"config.yaml:7:14: before_all statement: efmesh runs no statements beside its models: CREATE SCHEMA raw",
		"models/events.sql:15:3: property efmesh has no equivalent for: physical_properties (fill = 1)",
		"models/hist2.sql:1:30: SCD_TYPE_2_BY_COLUMN over some columns: efmesh's SCD_TYPE_2 opens a version when any column changes; written as SCD_TYPE_2 (key …): SCD_TYPE_2_BY_COLUMN (unique_key id, columns [kind])",
		"models/hist2.sql:2:8: Jinja in a sqlmesh model: efmesh has no Jinja; rewrite the query with efmesh's macros: Jinja",
		"models/users.sql:1:74: kind option efmesh has no equivalent for: when_matched (WHEN MATCHED THEN UPDATE SET x = 1)",
		"models/users.sql:3:38: EXTERNAL candidate: no model of the project; declare it in external_models.yaml with its columns, or write an EXTERNAL model (kind EXTERNAL (table other.thing)): other.thing",
		"models/v.sql:1:32: start efmesh cannot read (write 'YYYY-MM-DD'): start '1 week ago'",
		"models/v.sql:2:8: sqlmesh variable efmesh has no equivalent for: @start_epoch",
		"tests/t.yaml:7:62: test variable efmesh has no equivalent for (a test has an interval only): execution_time",
	}
	if g := pieces(res); !reflect.DeepEqual(g, wantPieces) {
		t.Errorf("unconverted:\n got %q\nwant %q", g, wantPieces)
	}

	cfg := read(t, to, "efmesh.yaml")
	for _, s := range []string{"start: 2024-01-01\n", "engine: {type: postgres, url: 'postgres://etl:${PGPASSWORD}@db:5433/wh'}\n", "defaults: {cron: '@hourly'}\n", "  country: 'FR'\n"} {
		if !strings.Contains(cfg, s) {
			t.Errorf("efmesh.yaml lacks %q:\n%s", s, cfg)
		}
	}
	if strings.Contains(cfg, "secret") {
		t.Errorf("efmesh.yaml holds the password:\n%s", cfg)
	}
	ev := read(t, to, "models/events.sql")
	for _, s := range []string{
		"kind INCREMENTAL_BY_TIME_RANGE (time_column at, batch_size 7, lookback 2)",
		"grain (id)", "tags (hot, pii)",
		"audits (not_null(id, at), unique(id), unique(kind), warn(unique(id, at)), accepted(kind, 'a', 'b'), warn(number_of_rows_above_10), core_events_forall, core_events_kind_range)",
		"-- efmesh: not converted: physical_properties (fill = 1)\n",
		"SELECT e.id, e.at, e.kind, 'FROM core.users' AS note -- FROM core.users\nFROM @ref(raw.events) AS e JOIN @ref(raw.users) AS u ON u.id = e.id\n",
		"WHERE e.at BETWEEN CAST(@start AS TIMESTAMP) AND CAST(@end - INTERVAL '1 microsecond' AS TIMESTAMP) AND e.kind = @var(country)\n",
	} {
		if !strings.Contains(ev, s) {
			t.Errorf("events.sql lacks %q:\n%s", s, ev)
		}
	}
	if strings.Contains(ev, "e.id;") {
		t.Errorf("the query kept its ';':\n%s", ev)
	}
	if a := read(t, to, "audits/core_events_forall.sql"); !strings.Contains(a, "SELECT * FROM @this WHERE NOT (id > 0) OR NOT (kind <> 'x')") {
		t.Errorf("forall audit:\n%s", a)
	}
	if a := read(t, to, "audits/core_events_kind_range.sql"); !strings.Contains(a, "SELECT * FROM @this WHERE kind <= 'a' OR kind >= 'c'") {
		t.Errorf("accepted_range audit:\n%s", a)
	}
	if x := read(t, to, "models/_external/raw/events.sql"); strings.Contains(x, "audits") {
		t.Errorf("external model with audits:\n%s", x)
	}
	if a := read(t, to, "audits/number_of_rows_above_10.sql"); !strings.Contains(a, "SELECT n FROM (SELECT count(*) AS n FROM @this) AS c WHERE n <= 10") {
		t.Errorf("number_of_rows audit:\n%s", a)
	}
	us := read(t, to, "models/users.sql")
	for _, s := range []string{"kind INCREMENTAL_BY_UNIQUE_KEY (key (id))", "owner 'ana'", "description 'All users'", "@DEF(lim, 10);\nSELECT id FROM @ref(core.events) LEFT JOIN other.thing"} {
		if !strings.Contains(us, s) {
			t.Errorf("users.sql lacks %q:\n%s", s, us)
		}
	}
	if h := read(t, to, "models/hist.sql"); !strings.Contains(h, "kind SCD_TYPE_2 (key (id))") {
		t.Errorf("hist.sql:\n%s", h)
	}
	if x := read(t, to, "models/_external/raw/events.sql"); !strings.Contains(x, "kind EXTERNAL (table raw.events),\n  columns (id INT, at TIMESTAMP, kind TEXT)") {
		t.Errorf("external model:\n%s", x)
	}
	wantTest := "t1:\n  model: core.users\n  interval:\n    - \"2024-01-01\"\n    - \"2024-01-03\"\n  inputs:\n    core.events:\n      - id: 1\n      - id: 2\n  expect:\n    - id: 1\n    - id: 2\n"
	if tt := read(t, to, "tests/t.yaml"); !strings.HasSuffix(tt, wantTest) {
		t.Errorf("test:\n%s\nwant\n%s", tt, wantTest)
	}
	if _, err := os.Stat(filepath.Join(to, "models/off.sql")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a disabled model was written: %v", err)
	}

	// A second conversion into the same folder writes nothing.
	var ee *ExistsError
	if _, err := Convert(from, to, Options{}); !errors.As(err, &ee) {
		t.Fatalf("second conversion: %v, want an ExistsError", err)
	}
}

// TestBadInput: no config, YAML that does not parse, a header never closed.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		files map[string]string
		want  string
	}{
		{map[string]string{"models/a.sql": "SELECT 1"}, "is not a sqlmesh project: it has no config.yaml, config.yml or config.py"},
		{map[string]string{"config.yaml": "gateways: [a\n"}, "config.yaml:1:"},
		{map[string]string{"config.yaml": "{}\n", "models/a.sql": "MODEL (name a.b, kind FULL\nSELECT 1"}, "models/a.sql:1:1: the MODEL header's '(' is never closed"},
		{map[string]string{"config.yaml": "{}\n", "models/a.sql": "MODEL (name a.b);\nSELECT 1", "models/b.sql": "MODEL (name a.b);\nSELECT 2"}, "models/a.sql and models/b.sql both define the model a.b"},
	} {
		from, to := t.TempDir(), t.TempDir()
		write(t, from, tc.files)
		_, err := Convert(from, to, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.files, err, tc.want)
		}
		if ents, _ := os.ReadDir(to); len(ents) > 0 {
			t.Errorf("%v: files were written on bad input", tc.files)
		}
	}
}

// TestFailedWriteLeavesNothing: a write that fails halfway (a file stands
// where a folder must go) removes every file and folder made before it.
func TestFailedWriteLeavesNothing(t *testing.T) {
	to := t.TempDir()
	write(t, to, map[string]string{"seeds": "in the way\n"})
	if _, err := Convert("../testdata/sqlmesh/quickstart", to, Options{}); err == nil {
		t.Fatal("conversion over a file named seeds succeeded")
	}
	ents, _ := os.ReadDir(to)
	if len(ents) != 1 || ents[0].Name() != "seeds" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left behind: %q", names)
	}
}

// TestSushi is which parts of sqlmesh's examples/sushi convert and which
// await a human.
func TestSushi(t *testing.T) {
	to := t.TempDir()
	res, err := Convert("../testdata/sqlmesh/sushi", to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var full, partial []string
	for _, m := range res.Models {
		if m.Converted {
			full = append(full, m.Name)
		} else {
			partial = append(partial, m.Name)
		}
	}
	if want := []string{"raw.demographics"}; !reflect.DeepEqual(full, want) {
		t.Errorf("converted in full: %q, want %q", full, want)
	}
	wantPartial := []string{"sushi.active_customers", "sushi.customer_revenue_by_day", "sushi.customer_revenue_lifetime", "sushi.customers",
		"sushi.latest_order", "sushi.marketing", "sushi.top_waiters", "sushi.waiter_as_customer_by_day", "sushi.waiter_names", "sushi.waiter_revenue_by_day"}
	if !reflect.DeepEqual(partial, wantPartial) {
		t.Errorf("awaiting a human: %q, want %q", partial, wantPartial)
	}
	reasons := map[string]int{}
	for _, p := range res.Unconverted {
		r := p.Reason
		if i := strings.IndexAny(r, ":("); i > 0 {
			r = r[:i]
		}
		reasons[strings.TrimSpace(r)]++
	}
	for r, n := range map[string]int{
		"Python model":                          6,
		"Python macro":                          8,
		"reads the Python model sushi.orders":   5,
		"kind efmesh has not":                   2,
		"pre-statement":                         3,
		"post-statement":                        1,
		"Jinja in a sqlmesh model":              1,
		"the model reads its own previous rows": 1,
		"metric":                                4,
		"standalone audit":                      1,
		"audit with parameters":                 3,
		"custom audit with arguments":           1,
	} {
		if reasons[r] != n {
			t.Errorf("%d pieces %q, want %d (all: %v)", reasons[r], r, n, reasons)
		}
	}
	// What converts inside the models that wait: refs, SEED, audits
	// defined after a query, the SCD kind, the time variables.
	wn := read(t, to, "models/waiter_names.sql")
	for _, s := range []string{"kind SEED (path 'seeds/waiter_names.csv')", "audits (assert_positive_id, assert_valid_name)", "grain (id)"} {
		if !strings.Contains(wn, s) {
			t.Errorf("waiter_names.sql lacks %q:\n%s", s, wn)
		}
	}
	if a := read(t, to, "audits/assert_valid_name.sql"); !strings.Contains(a, "SELECT * FROM @this WHERE LENGTH(name) < 1") {
		t.Errorf("audit:\n%s", a)
	}
	if tw := read(t, to, "models/top_waiters.sql"); !strings.Contains(tw, "FROM @ref(sushi.waiter_revenue_by_day)") || !strings.Contains(tw, "kind VIEW") || !strings.Contains(tw, "audits (unique(waiter_id))") {
		t.Errorf("top_waiters.sql:\n%s", tw)
	}
	if c := read(t, to, "models/customers.sql"); !strings.Contains(c, "LEFT JOIN @ref(raw.demographics) AS d") || !strings.Contains(c, "FROM @ref(sushi.marketing)") {
		t.Errorf("customers.sql:\n%s", c)
	}
	if tt := read(t, to, "tests/test_customer_revenue_lifetime.yaml"); !strings.Contains(tt, "interval:\n    - \"2000-01-02\"\n    - \"2000-01-03\"\n") {
		t.Errorf("test:\n%s", tt)
	}
}
