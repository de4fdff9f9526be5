package duckdb

import "testing"

func TestWidens(t *testing.T) {
	for _, c := range []struct {
		from, to string
		want     bool
	}{
		{"INT", "BIGINT", true},
		{"INTEGER", "INT8", true},
		{"BIGINT", "INT", false},
		{"INT", "TINYINT", false},
		{"UINTEGER", "BIGINT", true},
		{"UBIGINT", "BIGINT", false},
		{"BIGINT", "UBIGINT", false},
		{"FLOAT", "DOUBLE", true},
		{"DOUBLE", "FLOAT", false},
		{"INT", "DOUBLE", true},
		{"BIGINT", "DOUBLE", false}, // beyond 2^53 a BIGINT is rounded
		{"SMALLINT", "REAL", true},
		{"INT", "TEXT", false},
		{"DOUBLE", "DECIMAL(38,10)", false},
		{"INT", "DECIMAL(12,2)", true},
		{"INT", "DECIMAL(10,2)", false},
		{"DECIMAL(10,3)", "DECIMAL(12,3)", true},
		{"DECIMAL(10,3)", "DECIMAL(5,1)", false},
		{"DECIMAL(10,3)", "DECIMAL(12,4)", true},
		{"DECIMAL(10,3)", "DECIMAL(10,4)", false},
		{"DECIMAL", "DECIMAL(20,3)", true},
		{"VARCHAR(3)", "TEXT", true},
		{"TEXT", "VARCHAR", true},
		{"TIMESTAMP", "DATE", false},
	} {
		if got := (Dialect{}).Widens(c.from, c.to); got != c.want {
			t.Errorf("Widens(%s, %s) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
}
