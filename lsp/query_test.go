package lsp

import (
	"slices"
	"strings"
	"testing"
)

func TestScanSQL(t *testing.T) {
	src := `SELECT "Quoted ""x""", 'it''s', 1.5e-3, a::INT, @ref(s.t) AS t, @start -- c
/* block */ FROM x`
	var got []string
	for _, tk := range scanSQL([]byte(src), 0, len(src)) {
		s := tk.val
		if tk.kind == tkMacro && tk.arg != "" {
			s += "(" + tk.arg + ")"
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
		for _, tk := range scanSQL([]byte(src), 0, len(src)) {
			if tk.kind == tkMacro {
				args = append(args, tk.arg)
			}
		}
		if strings.Join(args, ",") != want {
			t.Errorf("refs of %q = %q, want %q", src, args, want)
		}
	}
	// Unclosed things end the scan instead of looping.
	for _, s := range []string{`'open`, `"open`, `/* open`, `@ref(`, `@ref(a.b`, `$`, "\xff\xfe"} {
		scanSQL([]byte(s), 0, len(s))
	}
}

func TestParseBody(t *testing.T) {
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
			q := parseBody([]byte(tt.body), 0)
			var outs, srcs, refs []string
			for _, it := range q.items {
				if it.name != "" {
					outs = append(outs, it.name)
				}
			}
			for _, s := range q.sources {
				what := s.model
				switch {
				case s.cte != nil:
					what = "cte:" + s.cte.name
				case s.sub != nil:
					what = "sub"
				case s.table != "":
					what = s.table
				}
				srcs = append(srcs, s.alias+"="+what)
			}
			walkQueries(q, func(s *query) {
				for _, it := range s.items {
					for _, r := range it.refs {
						refs = append(refs, strings.TrimPrefix(r.qual+"."+r.name, "."))
					}
				}
				for _, r := range s.refs {
					refs = append(refs, strings.TrimPrefix(r.qual+"."+r.name, "."))
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
