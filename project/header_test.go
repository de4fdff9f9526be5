package project

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// diagStrings renders diagnostics as "line:col: code: message" for exact
// comparisons in tests.
func diagStrings(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%d:%d: %s: %s", d.Range.Start.Line, d.Range.Start.Column, d.Code, d.Message))
	}
	return out
}

func TestParseModelKinds(t *testing.T) {
	tests := []struct {
		name   string
		header string // the property list inside MODEL ( … )
		body   string // defaults to "SELECT 1"
		want   Kind
		check  func(t *testing.T, m *Model)
	}{
		{
			name:   "default is FULL",
			header: "name a.b",
			want:   Kind{Name: KindFull},
		},
		{
			name:   "FULL, keyword case-insensitive",
			header: "name a.b, kind full",
			want:   Kind{Name: KindFull},
		},
		{
			name:   "FULL with empty options",
			header: "name a.b, kind FULL ()",
			want:   Kind{Name: KindFull},
		},
		{
			name:   "VIEW",
			header: "name a.b, kind VIEW",
			want:   Kind{Name: KindView},
		},
		{
			name:   "EMBEDDED",
			header: "name a.b, kind Embedded",
			want:   Kind{Name: KindEmbedded},
		},
		{
			name:   "INCREMENTAL_BY_TIME_RANGE defaults interval to day",
			header: "name a.b, kind INCREMENTAL_BY_TIME_RANGE (time_column started_at, batch_size 30, lookback 1)",
			want:   Kind{Name: KindIncrementalByTimeRange, TimeColumn: "started_at", BatchSize: 30, Lookback: 1},
			check: func(t *testing.T, m *Model) {
				if m.Interval != "day" {
					t.Errorf("Interval = %q, want day", m.Interval)
				}
			},
		},
		{
			name:   "INCREMENTAL_BY_TIME_RANGE hourly",
			header: "name a.b, kind INCREMENTAL_BY_TIME_RANGE (time_column ts), interval HOUR",
			want:   Kind{Name: KindIncrementalByTimeRange, TimeColumn: "ts"},
			check: func(t *testing.T, m *Model) {
				if m.Interval != "hour" {
					t.Errorf("Interval = %q, want hour", m.Interval)
				}
			},
		},
		{
			name:   "INCREMENTAL_BY_UNIQUE_KEY with a list",
			header: "name a.b, kind INCREMENTAL_BY_UNIQUE_KEY (key (a, b))",
			want:   Kind{Name: KindIncrementalByUniqueKey, Key: []string{"a", "b"}},
		},
		{
			name:   "INCREMENTAL_BY_UNIQUE_KEY with one column",
			header: "name a.b, kind INCREMENTAL_BY_UNIQUE_KEY (key id)",
			want:   Kind{Name: KindIncrementalByUniqueKey, Key: []string{"id"}},
		},
		{
			name:   "SCD_TYPE_2 defaults valid_to",
			header: "name a.b, kind SCD_TYPE_2 (key (id), valid_from since)",
			want:   Kind{Name: KindSCDType2, Key: []string{"id"}, ValidFrom: "since", ValidTo: "valid_to"},
		},
		{
			name:   "SEED",
			header: "name a.b, kind SEED (path 'seeds/x.csv')",
			body:   "\n-- no body\n;\n",
			want:   Kind{Name: KindSeed, Path: "seeds/x.csv"},
		},
		{
			name:   "EXTERNAL table",
			header: "name a.b, kind EXTERNAL (table raw.events)",
			body:   " ",
			want:   Kind{Name: KindExternal, Table: "raw.events"},
		},
		{
			name:   "EXTERNAL files infers parquet",
			header: "name a.b, kind EXTERNAL (files 'lake/**/*.parquet')",
			body:   "",
			want:   Kind{Name: KindExternal, Files: "lake/**/*.parquet", Format: "parquet"},
		},
		{
			name:   "EXTERNAL files infers csv through compression",
			header: "name a.b, kind EXTERNAL (files 'in/*.CSV.gz', header true)",
			body:   "",
			want: Kind{Name: KindExternal, Files: "in/*.CSV.gz", Format: "csv",
				Options: []Option{{Name: "header", Value: "true"}}},
		},
		{
			name:   "EXTERNAL files with format and reader options",
			header: "name a.b, kind EXTERNAL (files 'x/*', format JSON, union_by_name true, delim ',', sample_size 100)",
			body:   "",
			want: Kind{Name: KindExternal, Files: "x/*", Format: "json", Options: []Option{
				{Name: "union_by_name", Value: "true"},
				{Name: "delim", Value: ",", IsString: true},
				{Name: "sample_size", Value: "100"},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if body == "" && tt.want.Name.HasBody() {
				body = "SELECT 1"
			}
			src := "MODEL (" + tt.header + ");\n" + body
			m, diags := ParseModel("models/x.sql", []byte(src))
			if len(diags) > 0 {
				t.Fatalf("unexpected diagnostics: %v", diagStrings(diags))
			}
			if !reflect.DeepEqual(m.Kind, tt.want) {
				t.Errorf("Kind = %+v\nwant   %+v", m.Kind, tt.want)
			}
			if tt.check != nil {
				tt.check(t, m)
			}
		})
	}
}

func TestParseModelProperties(t *testing.T) {
	src := `-- stays
/* a block
   comment */ model (
  name Med.Stays,
  kind INCREMENTAL_BY_TIME_RANGE (time_column started_at),
  interval day,                       -- day | hour
  start '2026-01-01 06:00:00',
  cron '@daily',
  grain (stay_id, dept),
  columns (
    stay_id TEXT,
    "Dept" VARCHAR,
    started_at TIMESTAMP   WITH TIME ZONE,
    amount DECIMAL ( 10,2 ),
    s STRUCT(a INT, b VARCHAR[]),
    tags VARCHAR[],
  ),
  audits (not_null(stay_id), unique(stay_id, dept), accepted(dept, 'ICU', 'it''s'),
          assert_contiguous(started_at), assert_no_gaps(started_at, DAY),
          warn(per_interval(unique(stay_id))), whole(not_null(dept)), positive_amount, custom(amount, 'x', 1 + 2)),
  target parquet,
  description 'Patient''s stays',
  owner 'analytics',
  tags med
);

SELECT 1 FROM @ref(med.moves)
`
	m, diags := ParseModel("models/stays.sql", []byte(src))
	if len(diags) > 0 {
		t.Fatalf("unexpected diagnostics: %v", diagStrings(diags))
	}
	want := &Model{
		Name: "med.stays", Schema: "med", Table: "stays",
		Interval:    "day",
		Start:       "2026-01-01 06:00:00",
		Cron:        "@daily",
		Grain:       []string{"stay_id", "dept"},
		Target:      "parquet",
		Description: "Patient's stays",
		Owner:       "analytics",
		Tags:        []string{"med"},
	}
	got := &Model{
		Name: m.Name, Schema: m.Schema, Table: m.Table, Interval: m.Interval, Start: m.Start,
		Cron: m.Cron, Grain: m.Grain, Target: m.Target, Description: m.Description, Owner: m.Owner, Tags: m.Tags,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}

	var cols []string
	for _, c := range m.Columns {
		cols = append(cols, c.Name+" "+c.Type)
	}
	wantCols := []string{
		"stay_id TEXT", "Dept VARCHAR", "started_at TIMESTAMP WITH TIME ZONE",
		"amount DECIMAL(10, 2)", "s STRUCT(a INT, b VARCHAR[])", "tags VARCHAR[]",
	}
	if !reflect.DeepEqual(cols, wantCols) {
		t.Errorf("columns = %q\nwant      %q", cols, wantCols)
	}
	if r := m.Columns[3].Range; r.Start.Line != 14 || r.Start.Column != 5 || r.End.Line != 14 || r.End.Column != 28 {
		t.Errorf("range of column amount = %+v, want 14:5-14:28", r)
	}

	var audits []string
	for _, a := range m.Audits {
		s := a.Name + fmt.Sprint(a.Args)
		for in := a.Inner; in != nil; in = in.Inner {
			s += " > " + in.Name + fmt.Sprint(in.Args)
		}
		audits = append(audits, s+" = "+a.Text)
	}
	wantAudits := []string{
		"not_null[stay_id] = not_null(stay_id)",
		"unique[stay_id dept] = unique(stay_id, dept)",
		"accepted[dept ICU it's] = accepted(dept, 'ICU', 'it''s')",
		"assert_contiguous[started_at] = assert_contiguous(started_at)",
		"assert_no_gaps[started_at day] = assert_no_gaps(started_at, DAY)",
		"warn[] > per_interval[] > unique[stay_id] = warn(per_interval(unique(stay_id)))",
		"whole[] > not_null[dept] = whole(not_null(dept))",
		"positive_amount[] = positive_amount",
		"custom[amount x 1 + 2] = custom(amount, 'x', 1 + 2)",
	}
	if !reflect.DeepEqual(audits, wantAudits) {
		t.Errorf("audits =\n%s\nwant\n%s", strings.Join(audits, "\n"), strings.Join(wantAudits, "\n"))
	}
	if r := m.Audits[1].Range; r.Start.Line != 18 || r.Start.Column != 30 {
		t.Errorf("range of unique audit starts at %d:%d, want 18:30", r.Start.Line, r.Start.Column)
	}

	var props []string
	for _, p := range m.Properties {
		props = append(props, p.Name)
	}
	if want := []string{"name", "kind", "interval", "start", "cron", "grain", "columns", "audits", "target", "description", "owner", "tags"}; !reflect.DeepEqual(props, want) {
		t.Errorf("properties = %v", props)
	}
	if p, _ := m.Property("name"); p.Range.Start.Line != 4 || p.Range.Start.Column != 3 || p.ValueRange.Start.Column != 8 || p.ValueRange.End.Column != 17 {
		t.Errorf("name property range = %+v", p)
	}
	if m.NameRange.Start.Line != 4 || m.NameRange.Start.Column != 8 {
		t.Errorf("NameRange = %+v", m.NameRange)
	}
	if m.Header.Start.Line != 3 || m.Header.Start.Column != 15 || m.Header.End.Line != 25 || m.Header.End.Column != 3 {
		t.Errorf("Header = %+v, want 3:15-25:3", m.Header)
	}
	if want := "SELECT 1 FROM @ref(med.moves)\n"; m.Body != want || string(m.Source[m.BodyStart:]) != want {
		t.Errorf("Body = %q at %d", m.Body, m.BodyStart)
	}
	if refs := m.Refs(); !reflect.DeepEqual(refs, []string{"med.moves"}) {
		t.Errorf("Refs = %v", refs)
	}
}

func TestParseModelOptionalForms(t *testing.T) {
	// Single values without list parentheses, and a header without ';'.
	m, diags := ParseModel("m.sql", []byte("MODEL (name a.b, grain id, tags ('x', y), audits not_null(id), kind INCREMENTAL_BY_UNIQUE_KEY (key id,),)\nSELECT 1"))
	if len(diags) > 0 {
		t.Fatalf("unexpected diagnostics: %v", diagStrings(diags))
	}
	if !reflect.DeepEqual(m.Grain, []string{"id"}) || !reflect.DeepEqual(m.Tags, []string{"x", "y"}) || len(m.Audits) != 1 || m.Audits[0].Name != "not_null" {
		t.Errorf("got grain %v tags %v audits %+v", m.Grain, m.Tags, m.Audits)
	}
	if m.Target != "table" || m.Interval != "" || m.Columns != nil {
		t.Errorf("defaults: target %q interval %q columns %v", m.Target, m.Interval, m.Columns)
	}
}

func TestParseModelErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "no header",
			src:  "-- hi\nSELECT 1",
			want: []string{`2:1: header-missing: a model file starts with a MODEL (...) header, found "SELECT"`},
		},
		{
			name: "empty file",
			src:  "",
			want: []string{`1:1: header-missing: a model file starts with a MODEL (...) header, found end of file`},
		},
		{
			name: "missing paren after MODEL",
			src:  "MODEL name a.b;\nSELECT 1",
			want: []string{`1:7: header-syntax: expected ( after MODEL, found "name"`},
		},
		{
			name: "missing name",
			src:  "MODEL (kind FULL);\nSELECT 1",
			want: []string{`1:1: missing-property: the MODEL header has no name: add name schema.table`},
		},
		{
			name: "unknown property with did-you-mean",
			src:  "MODEL (\n  name a.b,\n  kidn FULL\n);\nSELECT 1",
			want: []string{`3:3: unknown-property: unknown property "kidn"; did you mean kind?`},
		},
		{
			name: "unknown property without suggestion",
			src:  "MODEL (name a.b, zzzzzz 1);\nSELECT 1",
			want: []string{`1:18: unknown-property: unknown property "zzzzzz" (known: name, kind, interval, start, cron, grain, columns, audits, target, description, owner, tags, answerable, caveats, redact, export, freshness)`},
		},
		{
			name: "duplicate property",
			src:  "MODEL (\n  name a.b,\n  owner 'x',\n  owner 'y'\n);\nSELECT 1",
			want: []string{`4:3: duplicate-property: duplicate property owner (first set on line 3)`},
		},
		{
			name: "bad names",
			src:  "MODEL (name stays);\nSELECT 1",
			want: []string{`1:13: bad-value: model name "stays" must be schema.table`},
		},
		{
			name: "bad name part",
			src:  "MODEL (name med.\"2x\");\nSELECT 1",
			want: []string{`1:13: bad-value: invalid model name "med.2x": each part must start with a letter and hold only letters a-z (in either case), digits and _`},
		},
		{
			name: "schema of environment views",
			src:  "MODEL (name Dev__Raw.orders);\nSELECT 1",
			want: []string{`1:13: reserved-name: model schema dev__raw cannot hold models: "__" separates environment and schema in the schemas of environment views (dev__raw is where environment dev keeps its views of schema raw)`},
		},
		{
			name: "name is not an identifier",
			src:  "MODEL (name 'a.b');\nSELECT 1",
			want: []string{`1:13: bad-value: name must be schema.table, found "'a.b'"`},
		},
		{
			name: "unknown kind",
			src:  "MODEL (name a.b, kind INCREMENTAL_BY_TIME);\nSELECT 1",
			want: []string{`1:23: bad-value: unknown kind INCREMENTAL_BY_TIME; did you mean INCREMENTAL_BY_TIME_RANGE?`},
		},
		{
			name: "batch_size must be positive",
			src:  "MODEL (name a.b, kind INCREMENTAL_BY_TIME_RANGE (time_column t, batch_size 0, lookback -1));\nSELECT 1",
			want: []string{
				`1:76: bad-value: batch_size must be a positive integer, found "0"`,
				`1:88: bad-value: lookback must be a non-negative integer, found "-1"`,
			},
		},
		{
			// Past the bound, interval arithmetic once wrapped and a
			// backfill never ended: the number is an error where it is.
			name: "batch_size and lookback are bounded",
			src:  "MODEL (name a.b, kind INCREMENTAL_BY_TIME_RANGE (time_column t, batch_size 3000000, lookback 1000001), interval hour);\nSELECT 1",
			want: []string{
				`1:76: bad-value: batch_size must be at most 1000000 intervals, found "3000000"`,
				`1:94: bad-value: lookback must be at most 1000000 intervals, found "1000001"`,
			},
		},
		{
			name: "batch_size and lookback past int",
			src:  "MODEL (name a.b, kind INCREMENTAL_BY_TIME_RANGE (time_column t, batch_size 9223372036854775807, lookback 99999999999999999999));\nSELECT 1",
			want: []string{
				`1:76: bad-value: batch_size must be at most 1000000 intervals, found "9223372036854775807"`,
				`1:106: bad-value: lookback must be at most 1000000 intervals, found "99999999999999999999"`,
			},
		},
		{
			name: "batch_size and lookback at the bound",
			src:  "MODEL (name a.b, kind INCREMENTAL_BY_TIME_RANGE (time_column t, batch_size 1000000, lookback 1000000));\nSELECT 1",
		},
		{
			name: "batch_size not a number",
			src:  "MODEL (name a.b, kind INCREMENTAL_BY_TIME_RANGE (time_column t, batch_size 'x'));\nSELECT 1",
			want: []string{`1:76: bad-value: batch_size must be a positive integer, found "'x'"`},
		},
		{
			name: "time_column required",
			src:  "MODEL (name a.b, kind INCREMENTAL_BY_TIME_RANGE (batch_size 2));\nSELECT 1",
			want: []string{`1:23: bad-value: kind INCREMENTAL_BY_TIME_RANGE needs time_column: INCREMENTAL_BY_TIME_RANGE (time_column <column>)`},
		},
		{
			name: "unknown kind option",
			src:  "MODEL (name a.b, kind INCREMENTAL_BY_TIME_RANGE (time_colum t));\nSELECT 1",
			want: []string{
				`1:23: bad-value: kind INCREMENTAL_BY_TIME_RANGE needs time_column: INCREMENTAL_BY_TIME_RANGE (time_column <column>)`,
				`1:50: unknown-property: unknown option of INCREMENTAL_BY_TIME_RANGE "time_colum"; did you mean time_column?`,
			},
		},
		{
			name: "options of a kind without options",
			src:  "MODEL (name a.b, kind VIEW (key a));\nSELECT 1",
			want: []string{`1:29: unknown-property: kind VIEW takes no options`},
		},
		{
			name: "key required",
			src:  "MODEL (name a.b, kind SCD_TYPE_2);\nSELECT 1\n",
			want: []string{`1:23: bad-value: kind SCD_TYPE_2 needs key: SCD_TYPE_2 (key (<column>, …))`},
		},
		{
			name: "seed path required and no body",
			src:  "MODEL (name a.b, kind SEED);\nSELECT 1;\n",
			want: []string{
				`1:23: bad-value: kind SEED needs path: SEED (path 'seeds/<file>.csv')`,
				`2:1: syntax-error: a SEED model has no SELECT body: its rows come from path`,
			},
		},
		{
			name: "external needs table or files",
			src:  "MODEL (name a.b, kind EXTERNAL);",
			want: []string{`1:23: bad-value: kind EXTERNAL needs table or files: EXTERNAL (table <schema.table> or files '<glob>')`},
		},
		{
			name: "external both table and files",
			src:  "MODEL (name a.b, kind EXTERNAL (table x.y, files 'a.csv'));",
			want: []string{`1:44: bad-value: kind EXTERNAL takes either table or files, not both`},
		},
		{
			name: "external format cannot be inferred",
			src:  "MODEL (name a.b, kind EXTERNAL (files 'data/*.txt'));",
			want: []string{`1:39: bad-value: cannot infer the format of "data/*.txt" from its extension: add format parquet, csv or json`},
		},
		{
			name: "external table takes no reader options",
			src:  "MODEL (name a.b, kind EXTERNAL (table x.y, format csv, header true));",
			want: []string{
				`1:44: bad-value: format applies to files, not to table`,
				`1:56: bad-value: reader option header applies to files, not to table`,
			},
		},
		{
			name: "external bad format",
			src:  "MODEL (name a.b, kind EXTERNAL (files 'a.csv', format xml));",
			want: []string{`1:55: bad-value: format must be parquet or csv or json, found "xml"`},
		},
		{
			name: "interval, start, cron, target",
			src:  "MODEL (\n  name a.b,\n  interval week,\n  start '2026-02-30',\n  cron '* * *',\n  target s3\n);\nSELECT 1",
			want: []string{
				`3:12: bad-value: interval must be day or hour, found "week"`,
				`4:9: bad-value: start "2026-02-30" is not a date: write 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS'`,
				`5:8: bad-value: cron "* * *" must have 5 fields (minute hour day month weekday) or be one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly`,
				`6:10: bad-value: target must be table or parquet or ducklake, found "s3"`,
			},
		},
		{
			name: "cron values out of range",
			src:  "MODEL (name a.b, cron '61 * * * *');\nSELECT 1",
			want: []string{`1:23: bad-value: cron "61 * * * *": end of range (61) above maximum (59): 61`},
		},
		{
			// It parses, but its next firing is never: a refresh could not
			// be recorded after the build.
			name: "cron that never fires",
			src:  "MODEL (name a.b, cron '0 0 30 2 *');\nSELECT 1",
			want: []string{`1:23: bad-value: cron "0 0 30 2 *" never fires: none of its months has its day of the month`},
		},
		{
			name: "cron on days some month has",
			src:  "MODEL (name a.b, cron '0 0 29 2 *');\nSELECT 1",
		},
		{
			name: "cron that never fires, in a list",
			src:  "MODEL (name a.b, cron '0 0 31 2,4,6 *');\nSELECT 1",
			want: []string{`1:23: bad-value: cron "0 0 31 2,4,6 *" never fires: none of its months has its day of the month`},
		},
		{
			name: "cron @every is no calendar",
			src:  "MODEL (name a.b, cron '@every 1h');\nSELECT 1",
			want: []string{`1:23: bad-value: cron "@every 1h" must have 5 fields (minute hour day month weekday) or be one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly`},
		},
		{
			name: "string properties need strings",
			src:  "MODEL (name a.b, description hello, owner 3);\nSELECT 1",
			want: []string{
				`1:30: bad-value: description must be a 'quoted string', found "hello"`,
				`1:43: bad-value: owner must be a 'quoted string', found "3"`,
			},
		},
		{
			name: "columns",
			src:  "MODEL (\n  name a.b,\n  columns (a, b INT, B TEXT, 'c' INT, d (x))\n);\nSELECT 1",
			want: []string{
				`3:12: bad-value: column a needs a type: a TYPE`,
				`3:22: bad-value: column B is declared twice`,
				`3:30: bad-value: expected a column name, found "'c'"`,
				`3:41: bad-value: expected the type of column d, found "("`,
			},
		},
		{
			name: "columns must be a list",
			src:  "MODEL (name a.b, columns a INT);\nSELECT 1",
			want: []string{`1:26: bad-value: columns must be a list: columns (name TYPE, …)`},
		},
		{
			name: "grain items",
			src:  "MODEL (name a.b, grain (a b, 'c'));\nSELECT 1",
			want: []string{
				`1:25: bad-value: expected a column name, found "a b"`,
				`1:30: bad-value: expected a column name, found "'c'"`,
			},
		},
		{
			name: "audits",
			src: "MODEL (\n  name a.b,\n  audits (not_null(), unique, accepted(x), accepted(x, y), assert_no_gaps(c, week),\n" +
				"    assert_contiguous(a, b), warn(a, b), warn(not_null()), 'x', custom(a) b)\n);\nSELECT 1",
			want: []string{
				`3:11: bad-value: wrong number of arguments to audit not_null: write not_null(col, …)`,
				`3:23: bad-value: wrong number of arguments to audit unique: write unique(col, …)`,
				`3:31: bad-value: wrong number of arguments to audit accepted: write accepted(col, 'value', …)`,
				`3:56: bad-value: accepted values must be literals such as 'ICU' or 42, found "y"`,
				`3:78: bad-value: the interval of assert_no_gaps must be day or hour, found "week"`,
				`4:5: bad-value: wrong number of arguments to audit assert_contiguous: write assert_contiguous(col)`,
				`4:30: bad-value: warn wraps exactly one audit: warn(unique(id))`,
				`4:47: bad-value: wrong number of arguments to audit not_null: write not_null(col, …)`,
				`4:60: bad-value: expected an audit name, found "'x'"`,
				`4:75: header-syntax: unexpected "b" after audit custom`,
			},
		},
		{
			name: "audit column arguments",
			src:  "MODEL (name a.b, audits (unique(a + b), not_null('a')));\nSELECT 1",
			want: []string{
				`1:33: bad-value: audit unique expects a column name, found "a + b"`,
				`1:50: bad-value: audit not_null expects a column name, found "'a'"`,
			},
		},
		{
			name: "every problem in the file, recovering at commas",
			src:  "MODEL (\n  name a.b,\n  kind FULL FULL,\n  interval (day,\n  owner 'x'),\n  tags x,\n  ,\n  description\n);\nSELECT 1",
			want: []string{
				`3:13: header-syntax: unexpected "FULL" after the kind value (properties are separated by commas)`,
				`4:12: bad-value: interval must be day or hour, found "("`,
				`7:3: header-syntax: expected a property before ,`,
				`8:3: header-syntax: property description needs a value`,
			},
		},
		{
			name: "trailing comma is fine, quoted property name is not",
			src:  "MODEL (name a.b, \"kind\" FULL,);\nSELECT 1",
			want: []string{`1:18: header-syntax: expected a property name, found "\"kind\""`},
		},
		{
			name: "unclosed header before the body",
			src:  "MODEL (\n  name a.b,\n  kind FULL\n\nSELECT * FROM @ref(a.c)",
			want: []string{`1:7: header-syntax: MODEL ( is not closed before SELECT: expected )`},
		},
		{
			name: "semicolon before the closing paren",
			src:  "MODEL (name a.b, kind FULL;\nSELECT 1",
			want: []string{`1:27: header-syntax: expected ) to close MODEL ( before ;`},
		},
		{
			name: "unclosed header at end of file",
			src:  "MODEL (name a.b, columns (a INT",
			want: []string{
				`1:7: header-syntax: MODEL ( is never closed: expected )`,
				`1:26: header-syntax: this ( is never closed: expected )`,
			},
		},
		{
			name: "unterminated string",
			src:  "MODEL (name a.b, owner 'x);\nSELECT 1",
			want: []string{`1:24: header-syntax: unterminated string`},
		},
		{
			name: "unterminated comment",
			src:  "/* MODEL (name a.b);\nSELECT 1",
			want: []string{`1:1: header-syntax: unterminated /* comment`},
		},
		{
			name: "no body",
			src:  "MODEL (name a.b)\n-- nothing here\n;  ",
			want: []string{`3:1: syntax-error: model has no SELECT body`},
		},
		{
			name: "external with a body",
			src:  "MODEL (name a.b, kind EXTERNAL (table x.y));\n\nSELECT 1\n\n",
			want: []string{`3:1: syntax-error: an EXTERNAL model has no SELECT body: it reads an existing table or files`},
		},
		{
			name: "freshness on a model efmesh makes",
			src:  "MODEL (name a.b, kind FULL, freshness (column t, warn_after 1 hour));\nSELECT 1",
			want: []string{`1:29: bad-value: freshness applies to EXTERNAL models (the sources efmesh reads and does not make), not to a FULL model`},
		},
		{
			name: "freshness without a column",
			src:  "MODEL (name a.b, kind EXTERNAL (table x.y), freshness (warn_after 1 hour));",
			want: []string{`1:45: bad-value: freshness needs the column whose newest value is checked: freshness (column <c>, …)`},
		},
		{
			name: "freshness without an age",
			src:  "MODEL (name a.b, kind EXTERNAL (table x.y), freshness (column t));",
			want: []string{`1:45: bad-value: freshness needs warn_after or error_after (or both): freshness (column t, warn_after 6 hours, error_after 1 day)`},
		},
		{
			name: "freshness bad ages",
			src:  "MODEL (name a.b, kind EXTERNAL (table x.y),\n  freshness (column t, warn_after 6 weeks, error_after 0 days, warn_afer 1 day, error_after soon));",
			want: []string{
				`2:37: bad-value: warn_after: unknown unit "weeks"; expected minutes, hours or days`,
				`2:56: bad-value: error_after: 0 must be a whole number from 1 to 100000`,
				`2:64: unknown-property: unknown option of freshness "warn_afer"; did you mean warn_after?`,
				`2:93: bad-value: error_after must be a whole number and a unit (minutes, hours or days), e.g. error_after 6 hours; found "soon"`,
			},
		},
		{
			name: "freshness warns after it fails",
			src:  "MODEL (name a.b, kind EXTERNAL (table x.y), freshness (column t, warn_after 2 days, error_after 24 hours));",
			want: []string{`1:66: bad-value: warn_after (2 days) must be shorter than error_after (1 day): a source warns before it fails`},
		},
		{
			name: "freshness of an undeclared column",
			src:  "MODEL (name a.b, kind EXTERNAL (table x.y), columns (id INT, loaded_at TIMESTAMP), freshness (column loadedat, error_after 1 day));",
			want: []string{`1:102: bad-value: freshness column loadedat is not a column of a.b (it declares id, loaded_at)`},
		},
		{
			name: "freshness not a list",
			src:  "MODEL (name a.b, kind EXTERNAL (table x.y), freshness 6);",
			want: []string{`1:55: bad-value: freshness must be a list: freshness (column <c>, warn_after 6 hours, error_after 1 day)`},
		},
		{
			name: "macros in the body",
			src:  "MODEL (name a.b);\nSELECT @ref(), @ref x, @ref(1x), @Foo, @ref('a.b'), @ref(a.b",
			want: []string{
				`2:8: bad-macro: @ref needs a model name: @ref(schema.table)`,
				`2:16: bad-macro: @ref needs a model name in parentheses: @ref(schema.table)`,
				`2:29: bad-macro: invalid model name "1x" in @ref: write @ref(schema.table) with letters, digits and _`,
				`2:45: bad-macro: expected a model name in @ref, found '\'': write @ref(schema.table)`,
				`2:53: bad-macro: expected ) after the model name in @ref`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, diags := ParseModel("models/x.sql", []byte(tt.src))
			if m == nil {
				t.Fatal("ParseModel returned no model")
			}
			got := diagStrings(diags)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			for _, d := range diags {
				if d.File != "models/x.sql" || d.Severity != SeverityError {
					t.Errorf("diagnostic %v: file %q severity %v", d, d.File, d.Severity)
				}
			}
		})
	}
}

func TestParseModelRecovers(t *testing.T) {
	// A model with header errors still carries what could be parsed, so the
	// editor keeps hover and the DAG working.
	src := "MODEL (name med.Stays, kind BAD, owner 'o');\nSELECT * FROM @ref(med.moves)"
	m, diags := ParseModel("m.sql", []byte(src))
	if len(diags) != 1 {
		t.Fatalf("diagnostics: %v", diagStrings(diags))
	}
	if m.Name != "med.stays" || m.Owner != "o" || m.Kind.Name != KindFull || len(m.Refs()) != 1 {
		t.Errorf("got name %q owner %q kind %q refs %v", m.Name, m.Owner, m.Kind.Name, m.Refs())
	}

	// The body of a header that was never closed is still scanned for refs.
	m, _ = ParseModel("m.sql", []byte("MODEL (name a.b, kind FULL\nWITH x AS (SELECT 1) SELECT * FROM @ref(a.c)"))
	if m.Name != "a.b" || !reflect.DeepEqual(m.Refs(), []string{"a.c"}) || !strings.HasPrefix(m.Body, "WITH") {
		t.Errorf("got name %q refs %v body %q", m.Name, m.Refs(), m.Body)
	}
}

func TestParseModelFixes(t *testing.T) {
	src := "MODEL (name a.b, kidn FULL, kind VEIW);\nSELECT 1"
	_, diags := ParseModel("m.sql", []byte(src))
	if len(diags) != 2 {
		t.Fatalf("diagnostics: %v", diagStrings(diags))
	}
	for i, want := range []string{"kind", "VIEW"} {
		old := []string{"kidn", "VEIW"}[i]
		fixes := diags[i].Fixes
		if len(fixes) != 1 || len(fixes[0].Edits) != 1 {
			t.Fatalf("fixes of %v: %+v", diags[i], fixes)
		}
		e := fixes[0].Edits[0]
		if e.NewText != want || src[e.Start:e.End] != old {
			t.Errorf("edit %+v replaces %q", e, src[e.Start:e.End])
		}
	}
}

func TestLineIndexMatchesPosAt(t *testing.T) {
	src := []byte("ab\nçé\r\n\n日本 x\xff y\n")
	li := newLineIndex(src)
	for off := 0; off <= len(src)+1; off++ {
		if got, want := li.pos(off), PosAt(src, off); got != want {
			t.Errorf("offset %d: %+v, want %+v", off, got, want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	cands := []string{"kind", "name", "interval", "description"}
	for word, want := range map[string]string{
		"kidn": "kind", "knd": "kind", "nmae": "name", "intervall": "interval",
		"descripton": "description", "zzz": "", "kind": "",
	} {
		got, ok := DidYouMean(word, cands)
		if got != want || ok != (want != "") {
			t.Errorf("DidYouMean(%q) = %q, %v; want %q", word, got, ok, want)
		}
	}
}

// TestParseFreshness: an EXTERNAL model's freshness, in any unit and case,
// either age alone or both.
func TestParseFreshness(t *testing.T) {
	tests := []struct {
		value string
		want  Freshness
	}{
		{"(column loaded_at, warn_after 6 hours, error_after 1 day)", Freshness{Column: "loaded_at", WarnAfter: 6 * time.Hour, ErrorAfter: 24 * time.Hour}},
		{"(COLUMN Loaded_At, ERROR_AFTER 90 Minutes)", Freshness{Column: "Loaded_At", ErrorAfter: 90 * time.Minute}},
		{"(column t, warn_after 1 minute)", Freshness{Column: "t", WarnAfter: time.Minute}},
		{"(error_after 2 days, column t)", Freshness{Column: "t", ErrorAfter: 48 * time.Hour}},
	}
	for _, tc := range tests {
		src := "MODEL (name raw.events, kind EXTERNAL (table raw.events), freshness " + tc.value + ");"
		m, diags := ParseModel("models/x.sql", []byte(src))
		if len(diags) > 0 {
			t.Errorf("%s: %v", tc.value, diagStrings(diags))
			continue
		}
		if m.Freshness == nil || *m.Freshness != tc.want {
			t.Errorf("%s: Freshness = %+v, want %+v", tc.value, m.Freshness, tc.want)
		}
	}
	for d, want := range map[time.Duration]string{time.Minute: "1 minute", 90 * time.Minute: "90 minutes", 6 * time.Hour: "6 hours", 24 * time.Hour: "1 day", 72 * time.Hour: "3 days"} {
		if got := FormatAge(d); got != want {
			t.Errorf("FormatAge(%s) = %q, want %q", d, got, want)
		}
	}
}
