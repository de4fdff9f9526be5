package sqlread_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

func TestScan(t *testing.T) {
	src := `SELECT "Quoted ""x""", 'it''s', 1.5e-3, a::INT, @ref(s.t) AS t, @start -- c
/* block */ FROM x`
	var got []string
	for _, tk := range sqlread.Scan([]byte(src), 0, len(src)) {
		s := tk.Val
		if tk.Kind == sqlscan.Macro && tk.Arg != "" {
			s += "(" + tk.Arg + ")"
		}
		got = append(got, s)
	}
	want := []string{"select", `Quoted "x"`, ",", "'it''s'", ",", "1.5e-3", ",", "a", "::", "int", ",", "ref(s.t)", "as", "t", ",", "start", "from", "x"}
	if !slices.Equal(got, want) {
		t.Errorf("tokens:\n got %q\nwant %q", got, want)
	}
	// Refs as the loader reads them: comments and newlines inside, none in
	// a dollar-quoted string.
	for src, want := range map[string]string{
		"FROM @ref( /* c */ A.b ) x": "a.b",
		"FROM @ref(\n  a.b\n) x":     "a.b",
		"SELECT $$ @ref(a.b) $$":     "",
		"SELECT $q$ @ref(a.b) $q$":   "",
	} {
		var args []string
		for _, tk := range sqlread.Scan([]byte(src), 0, len(src)) {
			if tk.Kind == sqlscan.Macro {
				args = append(args, tk.Arg)
			}
		}
		if strings.Join(args, ",") != want {
			t.Errorf("refs of %q = %q, want %q", src, args, want)
		}
	}
	// Unclosed things end the scan instead of looping.
	for _, s := range []string{`'open`, `"open`, `/* open`, `@ref(`, `@ref(a.b`, `$`, "\xff\xfe"} {
		sqlread.Scan([]byte(s), 0, len(s))
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		outputs string // output names of the top query
		sources string // alias=what of the top query
		refs    string // qual.name of every reference, in order of the scopes
	}{
		{
			name:    "aliases and expressions",
			body:    "SELECT o.id, o.amount * 2 AS double_amount, upper(c.name) name, count(*) n FROM @ref(s.orders) AS o JOIN @ref(s.customers) c ON c.id = o.customer_id",
			outputs: "id double_amount name n",
			sources: "o=s.orders c=s.customers",
			refs:    "o.id o.amount c.name c.id o.customer_id",
		},
		{
			name:    "a CTE and a star",
			body:    "WITH v AS (SELECT id, lower(x) AS x FROM @ref(s.a)) SELECT * EXCLUDE (x) FROM v WHERE v.id > 0",
			outputs: "",
			sources: "v=cte:v",
			refs:    "v.id id x",
		},
		{
			name:    "a subquery and a table function",
			body:    "SELECT q.a, d.day FROM (SELECT a FROM @ref(s.t)) AS q CROSS JOIN generate_series(1, 2) AS d(day) WHERE q.a < INTERVAL 1 DAY",
			outputs: "a day",
			sources: "q=sub d=generate_series",
			refs:    "q.a d.day q.a a",
		},
		{
			name:    "a set operation",
			body:    "SELECT a FROM @ref(s.x) UNION ALL SELECT b FROM @ref(s.y)",
			outputs: "a",
			sources: "x=s.x",
			refs:    "a b",
		},
		{
			name:    "half typed",
			body:    "SELECT o. FROM @ref(s.orders) o JOIN @ref(",
			outputs: "",
			sources: "o=s.orders",
			refs:    "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := sqlread.Parse([]byte(tt.body), 0)
			var outs, srcs, refs []string
			for _, it := range q.Items {
				if it.Name != "" {
					outs = append(outs, it.Name)
				}
			}
			for _, s := range q.Sources {
				what := s.Model
				switch {
				case s.CTE != nil:
					what = "cte:" + s.CTE.Name
				case s.Sub != nil:
					what = "sub"
				case s.Table != "":
					what = s.Table
				}
				srcs = append(srcs, s.Alias+"="+what)
			}
			sqlread.Walk(q, func(s *sqlread.Query) {
				for _, it := range s.Items {
					for _, r := range it.Refs {
						refs = append(refs, strings.TrimPrefix(r.Qual+"."+r.Name, "."))
					}
				}
				for _, r := range s.Refs {
					refs = append(refs, strings.TrimPrefix(r.Qual+"."+r.Name, "."))
				}
			})
			if got := strings.Join(outs, " "); got != tt.outputs {
				t.Errorf("outputs = %q, want %q", got, tt.outputs)
			}
			if got := strings.Join(srcs, " "); got != tt.sources {
				t.Errorf("sources = %q, want %q", got, tt.sources)
			}
			if got := strings.Join(refs, " "); got != tt.refs {
				t.Errorf("refs = %q, want %q", got, tt.refs)
			}
		})
	}
}
