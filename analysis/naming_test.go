package analysis

import (
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/project"
)

// TestNamesFitTheEngine: generated names stay within the engine's
// identifier limit, keep the fingerprint suffix whole and stay distinct.
func TestNamesFitTheEngine(t *testing.T) {
	long := &project.Model{Schema: "s", Table: strings.Repeat("t", 58)}
	fp1, fp2 := "0123456789abcdef", "fedcba9876543210"
	pg, dd := postgres.Dialect{}, duckdb.Dialect{}
	a, b := PhysicalRelation(pg, long, fp1).Name, PhysicalRelation(pg, long, fp2).Name
	if len(a) != 63 || !strings.HasSuffix(a, "__01234567") || a == b {
		t.Fatalf("postgres physical names %q, %q", a, b)
	}
	if got := PhysicalRelation(dd, long, fp1).Name; got != "s__"+long.Table+"__01234567" {
		t.Fatalf("duckdb physical name %q", got)
	}
	if got := PhysicalRelation(pg, &project.Model{Schema: "med", Table: "stays"}, fp1).Name; got != "med__stays__01234567" {
		t.Fatalf("a short name changed: %q", got)
	}
	env := strings.Repeat("e", 60)
	x, y := EnvSchema(pg, env, "sales"), EnvSchema(pg, env, "sales_eu")
	if len(x) > 63 || len(y) > 63 || x == y || !strings.HasPrefix(x, env[:40]) {
		t.Fatalf("postgres environment schemas %q, %q", x, y)
	}
	if got := EnvSchema(dd, env, "sales"); got != env+"__sales" {
		t.Fatalf("duckdb environment schema %q", got)
	}
	if got := EnvSchema(pg, "dev", "sales"); got != "dev__sales" {
		t.Fatalf("a short environment schema changed: %q", got)
	}
}

// TestValidateEnv: an environment name is a lower-case identifier, not a
// reserved schema, and at most project.MaxEnvName long, so every name made
// from it (its schemas, its files) fits; a 300-character name once planned
// and failed in apply on a file name.
func TestValidateEnv(t *testing.T) {
	long := strings.Repeat("e", project.MaxEnvName)
	tests := []struct {
		env, want string // want: part of the error, "" for none
	}{
		{"dev", ""},
		{"feature_2", ""},
		{long, ""},
		{long + "e", `invalid environment name: "` + long + `…" is 33 characters long, where an environment name has at most 32`},
		{strings.Repeat("e", 300), "is 300 characters long"},
		{"Dev", "use lower-case letters"},
		{"dev__mart", `"__" separates environment and schema`},
		{"_efmesh", "invalid environment name"},
	}
	for _, tt := range tests {
		err := ValidateEnv(tt.env)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("ValidateEnv(%q) = %v", tt.env, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("ValidateEnv(%q) = %v, want %q", tt.env, err, tt.want)
		}
	}
}
