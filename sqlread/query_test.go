package sqlread_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/sqlread"
)

func TestCTEs(t *testing.T) {
	tests := []struct {
		body string
		want string // name(cols)=outputs per CTE
	}{
		{"WITH a AS (SELECT x FROM t), b AS (SELECT y, z FROM a) SELECT * FROM b", "a()=x b()=y,z"},
		{"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r", "r(n)=n"},
		{"WITH per_day(d, n) AS MATERIALIZED (SELECT day, count(*) FROM t GROUP BY 1) FROM per_day", "per_day(d,n)=d,n"},
		{"WITH s(a) AS (SELECT * FROM t) SELECT a FROM s", "s(a)="},
		{"WITH half AS SELECT 1", "half()="},
	}
	for _, tt := range tests {
		q := sqlread.Parse([]byte(tt.body), 0)
		var got []string
		for _, c := range q.CTEs {
			var cols, outs []string
			for _, col := range c.Cols {
				cols = append(cols, col.Name)
			}
			for _, it := range c.Query.Items {
				if it.Name != "" {
					outs = append(outs, it.Name)
				}
			}
			got = append(got, fmt.Sprintf("%s(%s)=%s", c.Name, strings.Join(cols, ","), strings.Join(outs, ",")))
			if w := tt.body[c.NameStart:c.NameEnd]; w != c.Name {
				t.Errorf("%q: CTE %s written as %q", tt.body, c.Name, w)
			}
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("%q: CTEs = %q, want %q", tt.body, g, tt.want)
		}
	}
}

func TestSelectItems(t *testing.T) {
	tests := []struct {
		body string
		want []string // per item: name@written, "*"/"s.*" with excluded and replaced columns, "plain" for a column
	}{
		{
			body: `SELECT a, b AS "Bee", c cee, 1 + d, t.e FROM t`,
			want: []string{"a@a plain", `bee@"Bee" plain`, "cee@cee plain", "", "e@e plain"},
		},
		{
			body: "SELECT * EXCLUDE (x, y), s.* REPLACE (upper(n) AS n) FROM t AS s",
			want: []string{"* -x,y", "s.* ~n"},
		},
		{
			body: "SELECT * RENAME (a AS b), list_transform(l, x -> x + 1) AS l2, count(*) n FROM t",
			want: []string{"* ~a", "l2@l2", "n@n"},
		},
	}
	for _, tt := range tests {
		q := sqlread.Parse([]byte(tt.body), 0)
		var got []string
		for _, it := range q.Items {
			var s string
			switch {
			case it.Star && it.StarQual != "":
				s = it.StarQual + ".*"
			case it.Star:
				s = "*"
			case it.Name != "":
				s = it.Name + "@" + tt.body[it.NameStart:it.NameEnd]
			}
			if len(it.Exclude) > 0 {
				s += " -" + strings.Join(it.Exclude, ",")
			}
			if len(it.Replaced) > 0 {
				s += " ~" + strings.Join(it.Replaced, ",")
			}
			if it.Plain {
				s += " plain"
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: items\n got %q\nwant %q", tt.body, got, tt.want)
		}
	}
	// A lambda's parameter is not a column.
	q := sqlread.Parse([]byte("SELECT list_filter(l, x -> x > y) FROM t"), 0)
	var refs []string
	for _, r := range q.Items[0].Refs {
		refs = append(refs, r.Name)
	}
	if !slices.Equal(refs, []string{"l", "y"}) {
		t.Errorf("refs of a lambda = %q, want [l y]", refs)
	}
}

func TestSources(t *testing.T) {
	body := `SELECT 1 FROM @ref(raw.orders) o
LEFT JOIN main.customers AS c ON c.id = o.cid
JOIN (SELECT 1 AS k) sub USING (k)
CROSS JOIN range(3) r(i), @ref(raw.items)
WHERE true`
	q := sqlread.Parse([]byte(body), 0)
	var got []string
	for _, s := range q.Sources {
		what := "model " + s.Model
		switch {
		case s.Sub != nil:
			what = "sub"
		case s.Table != "":
			what = "table " + s.Table
		}
		alias := s.Alias
		if s.AliasEnd > s.AliasStart {
			alias += "@" + body[s.AliasStart:s.AliasEnd]
		}
		if len(s.ColAliases) > 0 {
			alias += "(" + strings.Join(s.ColAliases, ",") + ")"
		}
		got = append(got, alias+"="+what)
	}
	want := []string{"o@o=model raw.orders", "c@c=table main.customers", "sub@sub=sub", "r@r(i)=table range", "items=model raw.items"}
	if !slices.Equal(got, want) {
		t.Errorf("sources\n got %q\nwant %q", got, want)
	}
	var using []string
	for _, r := range q.Refs {
		if r.Using {
			using = append(using, r.Name)
		}
	}
	if !slices.Equal(using, []string{"k"}) {
		t.Errorf("USING columns = %q, want [k]", using)
	}
}

func TestScopes(t *testing.T) {
	body := "WITH c AS (SELECT a FROM @ref(s.x) AS inner_x) SELECT o.a FROM c AS o WHERE o.a IN (SELECT b FROM @ref(s.y) y WHERE y.b = o.a)"
	q := sqlread.Parse([]byte(body), 0)
	at := func(s string) int { return strings.Index(body, s) }
	tests := []struct {
		off   int
		alias string
		want  string // what the alias names from the scope at off; "" for nothing
	}{
		{at("a FROM @ref(s.x)"), "inner_x", "s.x"},
		{at("a FROM @ref(s.x)"), "y", ""}, // a nested query's alias is not visible outside it
		{at("o.a FROM c"), "o", "cte c"},
		{at("y.b"), "y", "s.y"},
		{at("y.b"), "o", "cte c"}, // a subquery sees its enclosing query's sources
		{at("o.a FROM c"), "y", ""},
	}
	for _, tt := range tests {
		s := q.ScopeAt(tt.off).SourceByAlias(tt.alias)
		got := ""
		switch {
		case s == nil:
		case s.CTE != nil:
			got = "cte " + s.CTE.Name
		default:
			got = s.Model
		}
		if got != tt.want {
			t.Errorf("%s at %d: %q, want %q", tt.alias, tt.off, got, tt.want)
		}
	}
	n := 0
	sqlread.Walk(q, func(*sqlread.Query) { n++ })
	if n != 3 {
		t.Errorf("Walk visited %d queries, want 3 (the top, the CTE's, the subquery)", n)
	}
}

// Broken text: Parse never fails nor loops, and reads what it can.
func TestBroken(t *testing.T) {
	for _, body := range []string{
		"", "(", ")", ";", "SELECT", "SELECT a,", "SELECT a FROM", "SELECT a FROM t JOIN", "WITH", "WITH x AS (",
		"SELECT (SELECT", "SELECT a FROM (SELECT b FROM", "SELECT * EXCLUDE (", "SELECT * REPLACE (a AS", "FROM @ref(",
		"SELECT a FROM t) SELECT b FROM u", "SELECT 'open", "SELECT a FROM t WHERE (((", "))) SELECT x",
	} {
		q := sqlread.Parse([]byte(body), 0)
		if q == nil {
			t.Errorf("Parse(%q) = nil", body)
		}
	}
	// Past a stray ')', the rest is read as more of the top query.
	q := sqlread.Parse([]byte("SELECT a FROM t) SELECT b FROM @ref(s.u) u"), 0)
	if s := q.ScopeAt(len("SELECT a FROM t) SELECT b")).SourceByAlias("u"); s == nil || s.Model != "s.u" {
		t.Errorf("after a stray ')': u = %+v, want the model s.u", s)
	}
	// A half-typed body still yields its names.
	q = sqlread.Parse([]byte("SELECT o.id, o. FROM @ref(s.orders) o WHERE o."), 0)
	if len(q.Sources) != 1 || q.Sources[0].Alias != "o" || len(q.Items) == 0 || q.Items[0].Name != "id" {
		t.Errorf("half typed: sources %v, items %v", q.Sources, q.Items)
	}
}

func TestKeywords(t *testing.T) {
	for _, w := range []string{"with", "select", "from", "where", "group", "having", "qualify", "window", "order", "limit", "offset", "union", "intersect", "except"} {
		if !sqlread.IsClauseStart(w) || !sqlread.IsKeyword(w) {
			t.Errorf("%s: not a clause keyword", w)
		}
	}
	for _, w := range []string{"on", "using", "join", "select", "values", "as", "SELECT", "id"} {
		if sqlread.IsClauseAfterFrom(w) {
			t.Errorf("%s ends a FROM clause", w)
		}
	}
	for w, want := range map[string]string{"group": "by", "order": "by", "where": "", "partition": ""} {
		if got := sqlread.ClauseSecondWord(w); got != want {
			t.Errorf("ClauseSecondWord(%s) = %q, want %q", w, got, want)
		}
	}
	for _, w := range []string{"asof", "positional", "semi", "anti", "join", "natural", "on", "pivot"} {
		if !sqlread.IsReserved(w) {
			t.Errorf("%s may be an implicit alias", w)
		}
	}
	if !sqlread.IsSetOperation("except") || sqlread.IsSetOperation("all") || !sqlread.IsJoinWord("asof") || sqlread.IsJoinWord("on") {
		t.Error("set operations or join words are wrong")
	}
	if sqlread.IsKeyword("amount") || sqlread.IsReserved("o") {
		t.Error("a column name or an alias is a keyword")
	}
}
