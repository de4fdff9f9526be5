package sqlread_test

import (
	"slices"
	"testing"

	"github.com/efmesh/efmesh/sqlread"
)

// text is what span s of body holds.
func text(body string, s sqlread.Span) string { return body[s.Start:max(s.End, s.Start)] }

func TestClauseSpans(t *testing.T) {
	for _, c := range []struct {
		body            string
		sel, from, rest string
	}{
		{"SELECT DISTINCT ON (a) a, b FROM t AS x JOIN u ON x.k = u.k WHERE a > 1 ORDER BY b;", "a, b", "t AS x JOIN u ON x.k = u.k", "WHERE a > 1 ORDER BY b"},
		{"SELECT ALL a FROM t", "a", "t", ""},
		{"SELECT 1 AS one", "1 AS one", "", ""},
		// DuckDB's FROM-first form, with and without a select list.
		{"FROM t AS o, u SELECT o.* EXCLUDE (ts) WHERE o.k = u.k", "o.* EXCLUDE (ts)", "t AS o, u", "WHERE o.k = u.k"},
		{"FROM t JOIN u ON t.k = u.k SELECT t.a", "t.a", "t JOIN u ON t.k = u.k", ""},
		{"FROM t WHERE a > 0", "", "t", "WHERE a > 0"},
		// The FROM of IS [NOT] DISTINCT FROM is an operator's.
		{"SELECT a IS DISTINCT FROM b AS d, c IS NOT DISTINCT FROM 1 FROM t", "a IS DISTINCT FROM b AS d, c IS NOT DISTINCT FROM 1", "t", ""},
		// The first operand's clauses.
		{"SELECT a FROM t WHERE x UNION ALL SELECT b FROM u", "a", "t", "WHERE x"},
	} {
		q := sqlread.Parse([]byte(c.body), 0)
		if got := text(c.body, q.Select); got != c.sel {
			t.Errorf("%s: select list %q, want %q", c.body, got, c.sel)
		}
		if got := text(c.body, q.From); got != c.from {
			t.Errorf("%s: FROM %q, want %q", c.body, got, c.from)
		}
		if got := text(c.body, q.Rest); got != c.rest {
			t.Errorf("%s: rest %q, want %q", c.body, got, c.rest)
		}
	}
	q := sqlread.Parse([]byte("SELECT a IS DISTINCT FROM b AS d FROM t"), 0)
	if len(q.Items) != 1 || q.Items[0].Name != "d" || len(q.Sources) != 1 || q.Sources[0].Alias != "t" {
		t.Errorf("IS DISTINCT FROM: items %+v, sources %+v", q.Items, q.Sources)
	}
	q = sqlread.Parse([]byte("FROM t JOIN u ON t.k = u.k SELECT t.a, u.b"), 0)
	if len(q.Sources) != 2 || len(q.Items) != 2 || q.Items[1].Name != "b" {
		t.Errorf("FROM first: items %+v, sources %+v", q.Items, q.Sources)
	}
}

func TestJoins(t *testing.T) {
	body := "SELECT 1 FROM a, b LEFT OUTER JOIN c ON b.k = c.k CROSS JOIN d JOIN e USING (k), LATERAL (SELECT 1) f"
	q := sqlread.Parse([]byte(body), 0)
	var got []string
	for _, s := range q.Sources {
		got = append(got, s.Join+"|"+body[s.JoinStart:s.JoinEnd])
	}
	want := []string{"|", ",|,", "left outer join|LEFT OUTER JOIN", "cross join|CROSS JOIN", "join|JOIN", ",|,"}
	if !slices.Equal(got, want) {
		t.Errorf("joins\n got %q\nwant %q", got, want)
	}
}

func TestPlaces(t *testing.T) {
	body := "WITH a AS (SELECT 1 AS x), b AS MATERIALIZED (SELECT x FROM a) SELECT *, b.* EXCLUDE (x), 2 * 3 AS six FROM b"
	q := sqlread.Parse([]byte(body), 0)
	var ctes []string
	for _, c := range q.CTEs {
		ctes = append(ctes, body[c.NameStart:c.End])
	}
	if want := []string{"a AS (SELECT 1 AS x)", "b AS MATERIALIZED (SELECT x FROM a)"}; !slices.Equal(ctes, want) {
		t.Errorf("CTEs\n got %q\nwant %q", ctes, want)
	}
	var stars []string
	for _, it := range q.Items {
		if it.Star {
			stars = append(stars, body[it.Start:it.StarEnd])
		}
	}
	if want := []string{"*", "b.*"}; !slices.Equal(stars, want) {
		t.Errorf("stars %q, want %q", stars, want)
	}
	body = "(SELECT a FROM t) UNION SELECT b FROM u"
	q = sqlread.Parse([]byte(body), 0)
	if q.Inner == nil || body[q.Inner.Start:q.Inner.End] != "SELECT a FROM t" || len(q.Branches) != 1 {
		t.Errorf("parenthesized first operand: %+v", q)
	}
	if q := sqlread.Parse([]byte("SELECT a FROM t"), 0); q.Inner != nil {
		t.Errorf("Inner of a plain query: %+v", q.Inner)
	}
}
