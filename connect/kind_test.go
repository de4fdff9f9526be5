package connect

import (
	"slices"
	"testing"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// The words efmesh.yaml's engine type accepts (project checks them with
// positions) are exactly the kinds engine knows, in the same order: a kind
// added on one side only fails here.
func TestEngineWordsAreKinds(t *testing.T) {
	if got, want := project.EngineTypes(), engine.KindWords(); !slices.Equal(got, want) {
		t.Fatalf("efmesh.yaml's engine types %q, engine's kinds %q", got, want)
	}
	if d := project.DefaultConfig().Engine.Type; d != engine.DefaultKind.String() {
		t.Errorf("efmesh.yaml's default engine %q, engine.DefaultKind %q", d, engine.DefaultKind)
	}
}

// EngineKind reads efmesh.yaml's engine type, in any case, with the
// default kind when it names none; the Dialect the warehouse opens with
// says the same kind.
func TestEngineKind(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want engine.Kind
	}{
		{"name: t\n", engine.DefaultKind},
		{"name: t\nengine: {path: x.db}\n", engine.DefaultKind},
		{"name: t\nengine: {type: DuckDB, path: wh.duckdb}\n", engine.DuckDB},
		{"name: t\nengine: {type: postgres, url: 'postgres://u@h/d'}\n", engine.Postgres},
	} {
		p := loadProject(t, tc.yaml)
		if got := EngineKind(p); got != tc.want {
			t.Errorf("%q: EngineKind = %v, want %v", tc.yaml, got, tc.want)
		}
	}
	p := loadProject(t, "name: t\nengine: {path: ':memory:'}\n")
	wh, err := Warehouse(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	if got := wh.Dialect().Kind(); got != EngineKind(p) {
		t.Errorf("the warehouse's dialect is of kind %v, efmesh.yaml names %v", got, EngineKind(p))
	}
	if wb, err := Workbench(p); err != nil {
		t.Fatal(err)
	} else {
		defer wb.Close()
		if got := wb.Dialect().Kind(); got != EngineKind(p) {
			t.Errorf("the workbench's dialect is of kind %v", got)
		}
	}
	pg := &project.Project{Config: project.Config{Engine: project.EngineConfig{Type: engine.Postgres.String()}}}
	wb, err := Workbench(pg)
	if err != nil {
		t.Fatal(err)
	}
	if got := wb.Dialect().Kind(); got != engine.Postgres {
		t.Errorf("a postgres project's workbench is of kind %v", got)
	}
}

// StoreLocation and StoreIsFile tell a SQLite file from a Postgres schema.
func TestStoreLocation(t *testing.T) {
	p := loadProject(t, "name: t\n")
	if !StoreIsFile(p) || StoreLocation(p) != "sqlite "+StorePath(p) {
		t.Errorf("default store: file %v, location %q", StoreIsFile(p), StoreLocation(p))
	}
	p = loadProject(t, "name: t\nstate: {type: postgres, url: 'postgres://u@h/d'}\n")
	if StoreIsFile(p) || StoreLocation(p) != "postgres postgres://u@h/d" {
		t.Errorf("postgres store: file %v, location %q", StoreIsFile(p), StoreLocation(p))
	}
}
