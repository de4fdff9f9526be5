package sqlread

import (
	"strings"
	"testing"
)

// TestPlaceAt reads the clause and the state at the cursor (|) of
// queries being typed.
func TestPlaceAt(t *testing.T) {
	for _, c := range []struct {
		src  string
		want string // clause, then the flags that hold
	}{
		{"|", " first"},
		{"SELECT |", "select first"},
		{"SELECT DISTINCT |", "select first"},
		{"SELECT hou|", "select first"},
		{"SELECT a, |", "select"},
		{"SELECT a, h|", "select"},
		{"SELECT a |", "select after"},
		{"SELECT a FR|", "select after"},
		{"SELECT a AS |", "select alias"},
		{"SELECT *|", "select after"},
		{"SELECT a * |", "select"},
		{"SELECT x::|", "select type"},
		{"SELECT CAST(x AS |", "select alias=false type call=cast"},
		{"SELECT coalesce(a, |", "select call=coalesce"},
		{"SELECT extract(year FROM |", "select call=extract"},
		{"SELECT CASE WHEN a THEN |", "select case"},
		{"SELECT CASE WHEN a THEN b |", "select after case"},
		{"SELECT CASE WHEN a THEN b END |", "select after"},
		{"SELECT a FROM |", "from first"},
		{"SELECT a FROM @ref(x.y) |", "from after"},
		{"SELECT a FROM @ref(x.y) AS o |", "from after"},
		{"SELECT a FROM t o JOIN u |", "from after joined"},
		{"SELECT a FROM t o JOIN u ON |", "on first"},
		{"SELECT a FROM t o JOIN u ON o.a = u.a |", "on after"},
		{"SELECT a FROM t o, |", "from"},
		{"SELECT a FROM t WHERE |", "where first"},
		{"SELECT a FROM t WHERE a > 1 |", "where after"},
		{"SELECT a FROM t WHERE a IS DISTINCT FROM |", "where"},
		{"SELECT a FROM t GROUP BY |", "group by first"},
		{"SELECT a FROM t GROUP BY a |", "group by after"},
		{"SELECT a FROM t ORDER BY a |", "order by after"},
		{"SELECT a FROM t LIMIT 1 |", "limit after"},
		{"SELECT a FROM t UNION |", " first"},
		{"SELECT a FROM (|", " first"},
		{"SELECT a FROM (SELECT |", "select first"},
		{"SELECT a FROM (SELECT b FROM u) s WHERE |", "where first"},
		{"SELECT a FROM t WHERE b IN (SELECT c FROM u WHERE |", "where first"},
		{"SELECT sum(a) OVER (PARTITION BY |", "select call=over"},
		{"WITH c AS (SELECT 1 AS a) |", "with after"},
		{"SELECT 'abc|'", "comment"},
		{"SELECT a -- note|", "comment"},
		{"SELECT a /* x | */", "comment"},
		{"SELECT \"Mixed |", "comment"},
	} {
		at := strings.Index(c.src, "|")
		src := []byte(strings.Replace(c.src, "|", "", 1))
		p := PlaceAt(src, 0, at)
		got := string(p.Clause)
		flag := func(on bool, name string) {
			if on {
				got += " " + name
			}
		}
		flag(p.First, "first")
		flag(p.After, "after")
		flag(p.Alias, "alias")
		flag(p.Type, "type")
		flag(p.InCase, "case")
		flag(p.Joined, "joined")
		flag(p.Comment, "comment")
		if p.Call != "" {
			got += " call=" + p.Call
		}
		want := strings.Replace(c.want, " alias=false", "", 1)
		if c.want == "comment" {
			want = " comment"
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", c.src, got, want)
		}
	}
}

// TestKeywords: the keywords that fit after a select item, a relation, a
// join and in ORDER BY, DuckDB's own only with its extensions.
func TestKeywords(t *testing.T) {
	kw := func(src string, ext bool) string {
		at := strings.Index(src, "|")
		b := []byte(strings.Replace(src, "|", "", 1))
		return strings.Join(PlaceAt(b, 0, at).Keywords(ext), ",")
	}
	for _, c := range []struct {
		src  string
		ext  bool
		want string
	}{
		{"SELECT a |", true, "AS,FROM,OVER,FILTER,AND,OR,NOT,IS,IN,LIKE,ILIKE,BETWEEN,GROUP BY,HAVING,QUALIFY,WINDOW,ORDER BY,LIMIT,OFFSET,UNION,UNION ALL,EXCEPT,INTERSECT"},
		{"SELECT a FROM t |", false, "AS,JOIN,LEFT JOIN,INNER JOIN,RIGHT JOIN,FULL JOIN,CROSS JOIN,WHERE,GROUP BY,HAVING,WINDOW,ORDER BY,LIMIT,OFFSET,UNION,UNION ALL,EXCEPT,INTERSECT"},
		{"SELECT a FROM t JOIN u |", false, "ON,USING,AS,JOIN,LEFT JOIN,INNER JOIN,RIGHT JOIN,FULL JOIN,CROSS JOIN,WHERE,GROUP BY,HAVING,WINDOW,ORDER BY,LIMIT,OFFSET,UNION,UNION ALL,EXCEPT,INTERSECT"},
		{"SELECT a FROM t ORDER BY a |", true, "ASC,DESC,NULLS FIRST,NULLS LAST,LIMIT,OFFSET"},
		{"SELECT a AS |", true, ""},
		{"|", true, "SELECT,WITH,FROM,VALUES"},
	} {
		if got := kw(c.src, c.ext); got != c.want {
			t.Errorf("%q: got %s, want %s", c.src, got, c.want)
		}
	}
}
