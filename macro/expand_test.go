package macro

import (
	"strings"
	"testing"
)

func lib(t *testing.T, src string) map[string]*Def {
	t.Helper()
	defs, probs := ParseFile("macros/m.sql", []byte(src))
	if len(probs) > 0 {
		t.Fatalf("macro file problems: %+v", probs)
	}
	m := map[string]*Def{}
	for _, d := range defs {
		m[strings.ToLower(d.Name)] = d
	}
	return m
}

const testMacros = `
-- Adds one.
MACRO add_one(x) AS @x + 1;

/* The amount of each payment method.
   One column per method. */
MACRO amounts(methods, col := amount) AS
  @EACH(@methods, m -> SUM(CASE WHEN payment_method = m THEN @col ELSE 0 END) AS @{m}_amount);

MACRO twice(x) AS @add_one(@add_one(@x));
MACRO loop_a(x) AS @loop_b(@x);
MACRO loop_b(x) AS @loop_a(@x);
MACRO cols() AS a, b, c;
`

func TestExpand(t *testing.T) {
	macros := lib(t, testMacros)
	env := &Env{Macros: macros, Vars: map[string]string{"region": "eu", "n": "3"}}
	cases := []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT @add_one(a) FROM @ref(x.y)", "SELECT a + 1 FROM @ref(x.y)"},
		{"SELECT @twice(a)", "SELECT a + 1 + 1"},
		{"@DEF(k, 5);\nSELECT @k AS k", "SELECT 5 AS k"},
		{"@DEF(f, (a, b) -> a * b);\nSELECT @f(x + 1, y)", "SELECT (x + 1) * y"},
		{"SELECT @EACH([a, b], c -> c + 1 AS @{c}_plus)", "SELECT a + 1 AS a_plus, b + 1 AS b_plus"},
		{"SELECT @EACH(['x', 'y'], c -> @c AS @{c})", "SELECT 'x' AS x, 'y' AS y"},
		{"SELECT @amounts(['credit_card', 'gift_card'])",
			"SELECT SUM(CASE WHEN payment_method = 'credit_card' THEN amount ELSE 0 END) AS credit_card_amount, SUM(CASE WHEN payment_method = 'gift_card' THEN amount ELSE 0 END) AS gift_card_amount"},
		{"SELECT 1 @IF(@var(region) = 'eu', WHERE y > 0)", "SELECT 1 WHERE y > 0"},
		{"SELECT 1 @IF(@var(region) = 'us', WHERE y > 0)", "SELECT 1 "},
		{"SELECT @IF(1 > 2, a, b)", "SELECT b"},
		{"SELECT @REDUCE([a, b, c], (x, y) -> x + y)", "SELECT (a + b) + c"},
		{"SELECT @FILTER([1, 2, 3], x -> x > 1)", "SELECT 2, 3"},
		{"SELECT @SQL('a' || '_b')", "SELECT a_b"},
		{"SELECT @SAFE_DIVIDE(a, b)", "SELECT (a / NULLIF(b, 0))"},
		{"SELECT @GENERATE_SURROGATE_KEY(a, b)", "SELECT MD5(CONCAT(COALESCE(CAST(a AS TEXT), '_sqlmesh_surrogate_key_null_'), '|', COALESCE(CAST(b AS TEXT), '_sqlmesh_surrogate_key_null_')))"},
		{"SELECT @GENERATE_SURROGATE_KEY(a, hash_function := 'sha256')", "SELECT SHA256(CONCAT(COALESCE(CAST(a AS TEXT), '_sqlmesh_surrogate_key_null_')))"},
		{"SELECT 1 WHERE @AND(a > 1, NULL, b)", "SELECT 1 WHERE ((a > 1) AND b)"},
		{"SELECT @STAR(@ref(a.b), except := [@DEF_x])", ""},
		{"SELECT @cols()", "SELECT a, b, c"},
		{"SELECT @cols", "SELECT a, b, c"},
		{"SELECT @PIVOT(status, ['a', 'b'])", `SELECT SUM(CASE WHEN status = 'a' THEN 1 ELSE 0 END) AS "a", SUM(CASE WHEN status = 'b' THEN 1 ELSE 0 END) AS "b"`},
		{"@DEDUPLICATE(@ref(a.b), [id], ['ts DESC'])", "SELECT DISTINCT ON (id) * FROM @ref(a.b) ORDER BY id, ts DESC"},
		{"@DATE_SPINE('day', '2024-01-01', '2024-01-31')", "SELECT CAST(_efmesh_spine.date_day AS DATE) AS date_day FROM generate_series(CAST('2024-01-01' AS TIMESTAMP), CAST('2024-01-31' AS TIMESTAMP), INTERVAL '1 day') AS _efmesh_spine(date_day)"},
		{"SELECT a FROM t WHERE ts >= @start AND ts < @end AND x = @var(region)", "SELECT a FROM t WHERE ts >= @start AND ts < @end AND x = @var(region)"},
		{"SELECT a @> b, a @@ b, '@add_one(x)'", "SELECT a @> b, a @@ b, '@add_one(x)'"},
		// sqlmesh's column_@x: a value at the end of a name is spliced as
		// @{x} is, a string without its quotes.
		{"SELECT @EACH(['4', '5'], x -> f = x AS column_@x)", "SELECT f = '4' AS column_4, f = '5' AS column_5"},
		{"@DEF(n, 'größe');\nSELECT a AS col_@n, @n AS v", "SELECT a AS col_größe, 'größe' AS v"},
		// A call that expands to nothing takes its comma along.
		{"SELECT a, @IF(1 > 2, b) FROM t", "SELECT a  FROM t"},
		{"SELECT @IF(1 > 2, b), a FROM t", "SELECT  a FROM t"},
		{"SELECT a, @IF(1 > 2, b), c", "SELECT a , c"},
		{"SELECT a, @EACH(@FILTER([1, 2], x -> x > 5), x -> x) FROM t", "SELECT a  FROM t"},
		{"SELECT f(a, @IF(FALSE, b))", "SELECT f(a )"},
		{"@DEF(k, 1);\nSELECT a, @k", "SELECT a, 1"},
		// BETWEEN in a condition, as sqlmesh's docs list it.
		{"SELECT @IF(2 BETWEEN 1 AND 3, a, b)", "SELECT a"},
		{"SELECT @IF(@var(n) NOT BETWEEN 1 AND 2 AND TRUE, a, b)", "SELECT a"},
		// @OR of nothing is TRUE, as sqlmesh's.
		{"SELECT 1 WHERE @OR(@IF(1 > 2, a = 1), NULL)", "SELECT 1 WHERE TRUE"},
	}
	for _, c := range cases {
		r := Expand("models/m.sql", []byte(c.in), 0, env)
		if c.want == "" {
			continue
		}
		if len(r.Problems) > 0 {
			t.Errorf("%s: problems %+v", c.in, r.Problems)
			continue
		}
		if got := string(r.Text); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestExpandProblems(t *testing.T) {
	macros := lib(t, testMacros)
	env := &Env{Macros: macros, Vars: map[string]string{}}
	cases := []struct{ in, at, msg string }{
		{"SELECT @add_on(a)", "@add_on", "unknown macro @add_on"},
		{"SELECT @add_one(a, b)", "b", "takes 1 argument"},
		{"SELECT @add_one(y := a)", "y", "has no parameter y"},
		{"SELECT @add_one()", ")", "needs its argument x"},
		{"SELECT @loop_a(1)", "@loop_a(1)", "calls itself without end"},
		{"SELECT @EACH([a], 1)", "1", "expected a lambda"},
		{"SELECT @EACH([a], (x, y) -> x)", "(x, y) -> x", "takes 2 argument"},
		{"SELECT @IF(a > 1, b)", "a > 1", "known before the query runs"},
		{"SELECT @IF(1 + 1, b)", "1 + 1", "not a boolean"},
		{"SELECT @IF(@var(nope) = 'x', b)", "@var(nope) = 'x'", "has no value"},
		{"SELECT @DATE_SPINE('fortnight', a, b)", "'fortnight'", "datepart"},
		{"SELECT @STAR(@ref(a.b), bogus := 1)", "bogus", "no parameter bogus"},
		{"SELECT @add_one(a", "@add_one", "expected )"},
		{"SELECT @GENERATE_SURROGATE_KEY(a, hash_function := md5(a))", "md5(a)", "hash_function must be"},
		{"SELECT @add_one + 1", "@add_one", "takes arguments in parentheses"},
	}
	for _, c := range cases {
		r := Expand("models/m.sql", []byte(c.in), 0, env)
		if len(r.Problems) == 0 {
			t.Errorf("%s: no problem", c.in)
			continue
		}
		p := r.Problems[0]
		if len(p.Message) > 200 {
			t.Errorf("%s: a message of %d bytes: %s", c.in, len(p.Message), p.Message)
		}
		if got := c.in[p.Start:p.End]; got != c.at || !strings.Contains(p.Message, c.msg) {
			t.Errorf("%s: problem at %q: %s; want at %q containing %q", c.in, got, p.Message, c.at, c.msg)
		}
	}
}

func TestExpandMap(t *testing.T) {
	macros := lib(t, testMacros)
	src := "SELECT @add_one(price) AS p, qty FROM t"
	r := Expand("models/m.sql", []byte(src), 0, &Env{Macros: macros})
	out := string(r.Text)
	if out != "SELECT price + 1 AS p, qty FROM t" {
		t.Fatalf("got %s", out)
	}
	// An argument copied from the file maps to itself.
	if got := r.Map.FileOffset(strings.Index(out, "price")); got != strings.Index(src, "price") {
		t.Errorf("price maps to %d", got)
	}
	// The macro's own text maps to the call, and its origin is the macro file.
	plus := strings.Index(out, "+ 1")
	if got := r.Map.FileOffset(plus); got != strings.Index(src, "@add_one") {
		t.Errorf("+ maps to %d", got)
	}
	if file, _, _, _, ok := r.Map.Origin(plus); !ok || file != "macros/m.sql" {
		t.Errorf("origin of + is %q %v", file, ok)
	}
	if got := r.Map.FileOffset(strings.Index(out, "qty")); got != strings.Index(src, "qty") {
		t.Errorf("qty maps to %d", got)
	}
	if got := r.Map.OutOffset(strings.Index(src, "qty")); got != strings.Index(out, "qty") {
		t.Errorf("qty maps back to %d", got)
	}
	if len(r.Calls) != 1 || r.Calls[0].Def == nil || r.Calls[0].Name != "add_one" || out[r.Calls[0].OutStart:r.Calls[0].OutEnd] != "price + 1" {
		t.Errorf("calls %+v", r.Calls)
	}
	if len(r.Used) != 1 || r.Used[0] != "add_one" {
		t.Errorf("used %v", r.Used)
	}
	// A macro without parameters called without parentheses maps to its
	// call as one with them does.
	for _, src := range []string{"SELECT x, @cols FROM t", "SELECT x, @cols() FROM t"} {
		r := Expand("models/m.sql", []byte(src), 0, &Env{Macros: macros})
		out := string(r.Text)
		at := strings.Index(src, "@cols")
		if got := r.Map.FileOffset(strings.Index(out, "b")); got != at {
			t.Errorf("%s: b maps to %d, want the call at %d", src, got, at)
		}
		if s, e := r.Map.FileRange(strings.Index(out, "a,"), strings.Index(out, " FROM")); s != at || src[e-1] != ')' && src[s:e] != "@cols" {
			t.Errorf("%s: a, b, c maps to %q", src, src[s:e])
		}
		if len(r.Calls) != 1 || r.Calls[0].Def == nil || r.Calls[0].Start != at {
			t.Errorf("%s: calls %+v", src, r.Calls)
		}
	}
}

func TestParseFileDoc(t *testing.T) {
	defs, _ := ParseFile("m.sql", []byte(testMacros))
	if len(defs) != 6 {
		t.Fatalf("%d defs", len(defs))
	}
	if defs[0].Doc != "Adds one." || defs[1].Doc != "The amount of each payment method.\nOne column per method." {
		t.Errorf("docs %q %q", defs[0].Doc, defs[1].Doc)
	}
	if defs[1].Signature() != "@amounts(methods, col := amount)" {
		t.Errorf("signature %s", defs[1].Signature())
	}
	_, probs := ParseFile("m.sql", []byte("MACRO each(x) AS 1;\nSELECT 1;\nMACRO (x) AS 1"))
	if len(probs) != 3 {
		t.Errorf("problems %+v", probs)
	}
}

// TestExpandReads checks what an expansion says it read of its Env: the
// project macros called (through others too), the names a @DEF needs
// free, and the variables read.
func TestExpandReads(t *testing.T) {
	env := &Env{Macros: lib(t, testMacros), Vars: map[string]string{"region": "eu"}}
	r := Expand("models/m.sql", []byte("@DEF(k, 5);\nSELECT @twice(@k) AS a @IF(@var(region) = 'eu', WHERE a > 0)"), 0, env)
	if len(r.Problems) > 0 {
		t.Fatalf("problems %+v", r.Problems)
	}
	if got := strings.Join(r.Used, ","); got != "add_one,twice" {
		t.Errorf("Used %s", got)
	}
	if got := strings.Join(r.Absent, ","); got != "k" {
		t.Errorf("Absent %s", got)
	}
	if r.Vars["region"] != "eu" || len(r.Vars) != 1 {
		t.Errorf("Vars %v", r.Vars)
	}
}

func TestExpandListsMustBeLists(t *testing.T) {
	env := &Env{}
	for _, in := range []string{
		"SELECT @EACH(a, x -> x)",
		"SELECT @REDUCE(a + b, (x, y) -> x)",
		"SELECT @FILTER('x', x -> TRUE)",
	} {
		r := Expand("m.sql", []byte(in), 0, env)
		if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Message, "expected a list") {
			t.Errorf("%s: problems %+v", in, r.Problems)
		}
	}
	for _, in := range []string{
		"@DEF(l, [a, b]);\nSELECT @EACH(@l, x -> x)",
		"SELECT @EACH((a, b), x -> x)",
		"SELECT @EACH(@FILTER([1, 2], x -> x > 1), x -> x)",
		"SELECT @EACH([], x -> x)",
	} {
		if r := Expand("m.sql", []byte(in), 0, env); len(r.Problems) > 0 {
			t.Errorf("%s: problems %+v", in, r.Problems)
		}
	}
}

// TestExpandSize: an expansion growing past MaxSize stops with one
// problem on the call written in the model, instead of eating the memory.
func TestExpandSize(t *testing.T) {
	macros := lib(t, "MACRO twice(x) AS @x || @x;")
	src := "SELECT " + strings.Repeat("@twice(", 14) + "'" + strings.Repeat("abcdefgh", 1024) + "'" + strings.Repeat(")", 14)
	r := Expand("models/m.sql", []byte(src), 0, &Env{Macros: macros})
	if len(r.Problems) != 1 || r.Problems[0].Code != CodeSize {
		t.Fatalf("problems %+v", r.Problems)
	}
	if p := r.Problems[0]; !strings.HasPrefix(src[p.Start:p.End], "@twice(") || !strings.HasSuffix(src[p.Start:p.End], ")") {
		t.Errorf("the problem is at %q, not on a call", src[p.Start:p.End])
	}
	if !strings.Contains(r.Problems[0].Message, "16 MB") {
		t.Errorf("message %s", r.Problems[0].Message)
	}
}

func TestSurrogateKeyOptions(t *testing.T) {
	r := Expand("m.sql", []byte("SELECT @GENERATE_SURROGATE_KEY(a, b, null_marker := '_dbt_utils_surrogate_key_null_', separator := '-')"), 0, &Env{})
	want := "SELECT MD5(CONCAT(COALESCE(CAST(a AS TEXT), '_dbt_utils_surrogate_key_null_'), '-', COALESCE(CAST(b AS TEXT), '_dbt_utils_surrogate_key_null_')))"
	if len(r.Problems) > 0 || string(r.Text) != want {
		t.Errorf("got %s %+v", r.Text, r.Problems)
	}
}
