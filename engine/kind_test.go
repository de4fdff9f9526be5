package engine

import (
	"slices"
	"testing"
)

func TestParseKind(t *testing.T) {
	for _, w := range KindWords() {
		k, ok := ParseKind(w)
		if !ok || k.String() != w {
			t.Errorf("ParseKind(%q) = %v, %v; want the kind that prints as %q", w, k, ok, w)
		}
		if up, ok := ParseKind(string([]byte{w[0] - 'a' + 'A'}) + w[1:]); !ok || up != k {
			t.Errorf("ParseKind of %q capitalised = %v, %v; want %v", w, up, ok, k)
		}
		if k.Capabilities().Title == "" {
			t.Errorf("%v has no title", k)
		}
	}
	if !slices.Equal(KindWords(), []string{DuckDB.String(), Postgres.String()}) {
		t.Errorf("KindWords() = %q", KindWords())
	}
	if k, ok := ParseKind("mysql"); ok || k != 0 {
		t.Errorf(`ParseKind("mysql") = %v, %v; want none`, k, ok)
	}
	if s := Kind(0).String(); s != "" {
		t.Errorf("the zero Kind prints as %q", s)
	}
	if c := Kind(0).Capabilities(); c.InProcess || c.ReadsFiles || c.Title != "" || len(c.SystemSchemas) > 0 {
		t.Errorf("the zero Kind has capabilities %+v", c)
	}
}

func TestCapabilities(t *testing.T) {
	d := DuckDB.Capabilities()
	if !d.SystemSchema("PG_CATALOG") || !d.SystemSchema("temp") || d.SystemSchema("main") {
		t.Errorf("duckdb system schemas: %q", d.SystemSchemas)
	}
	p := Postgres.Capabilities()
	if !p.SystemSchema("information_schema") || p.SystemSchema("temp") {
		t.Errorf("postgres system schemas: %q", p.SystemSchemas)
	}
	d.SystemSchemas[0] = "changed"
	if DuckDB.Capabilities().SystemSchemas[0] == "changed" {
		t.Error("Capabilities shares its schema list with the caller")
	}
	if !d.ReadsParquet("CREATE VIEW v AS SELECT * FROM READ_PARQUET(['x.parquet'])") || d.ReadsParquet("CREATE VIEW v AS SELECT 1 WHERE false") {
		t.Error("duckdb ReadsParquet reads view definitions wrongly")
	}
	if p.ReadsParquet("SELECT * FROM read_parquet('x')") {
		t.Error("postgres reads no parquet")
	}
	if got := TitlesWith(func(c Capabilities) bool { return c.InProcess }); got != "DuckDB" {
		t.Errorf("in-process engines: %q", got)
	}
	if got := TitlesWith(func(Capabilities) bool { return true }); got != "DuckDB or Postgres" {
		t.Errorf("all engines: %q", got)
	}
	if c := CapabilitiesOf(nil); c.Title != "" {
		t.Errorf("CapabilitiesOf(nil) = %+v", c)
	}
}

func TestNormalTypeName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"decimal( 10,2 )", "DECIMAL(10,2)"},
		{"DECIMAL(10, 2)", "DECIMAL(10,2)"},
		{"  double\t\nprecision ", "DOUBLE PRECISION"},
		{"varchar [ ]", "VARCHAR[]"},
		{"struct(a int, b text)", "STRUCT(A INT,B TEXT)"},
		{"énum x", "ÉNUM X"},
		{"", ""},
	} {
		if got := NormalTypeName(tc.in); got != tc.want {
			t.Errorf("NormalTypeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBetween(t *testing.T) {
	for _, tc := range []struct{ s, open, close, want string }{
		{`unknown column "x" in y`, `column "`, `"`, "x"},
		{`unknown column "x`, `column "`, `"`, "x"},
		{`no such thing`, `column "`, `"`, ""},
		{`Referenced column a.b not found`, "Referenced column ", " not found", "a.b"},
	} {
		if got := Between(tc.s, tc.open, tc.close); got != tc.want {
			t.Errorf("Between(%q, %q, %q) = %q, want %q", tc.s, tc.open, tc.close, got, tc.want)
		}
	}
}
