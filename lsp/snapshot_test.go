package lsp

import (
	"reflect"
	"testing"

	"github.com/efmesh/efmesh/project"
)

// clone carries every field of a snapshot but the two that say how one
// snapshot was made. The fixture sets every field, so a field added to
// snapshot fails here until the fixture sets it too — and the test then
// shows whether clone carries it (it does, unless cleared in clone and
// listed in reset below).
func TestSnapshotCloneCarriesEveryField(t *testing.T) {
	cfg := project.DefaultConfig()
	cfg.Name = "shop"
	src := &snapshot{
		seq:     7,
		root:    "/p",
		env:     "dev",
		config:  &file{rel: project.ConfigFile},
		cfg:     cfg,
		files:   map[string]*file{"models/a.sql": {rel: "models/a.sql"}},
		proj:    &project.Project{Root: "/p"},
		models:  new(modelSet),
		open:    map[string]openDoc{"models/a.sql": {uri: "file:///p/models/a.sql", version: 3}},
		full:    true,
		lineage: 4,
		edited:  map[string]bool{"models/a.sql": true},
		partial: true,
	}
	rv := reflect.ValueOf(src).Elem()
	for i := range rv.NumField() {
		if rv.Field(i).IsZero() {
			t.Errorf("the fixture leaves snapshot.%s unset: set it, so clone is seen to carry it (or to start it over)", rv.Type().Field(i).Name)
		}
	}
	reset := map[string]bool{"seq": true, "full": true, "partial": true}

	n := src.clone(9)
	if n == src {
		t.Fatal("clone returned its receiver")
	}
	nv := reflect.ValueOf(n).Elem()
	for i := range nv.NumField() {
		name := nv.Type().Field(i).Name
		same := reflect.DeepEqual(field(rv, i), field(nv, i))
		switch {
		case reset[name] && same:
			t.Errorf("clone carried snapshot.%s, which says how one snapshot was made", name)
		case !reset[name] && !same:
			t.Errorf("clone did not carry snapshot.%s", name)
		}
	}
	if n.seq != 9 || n.full || n.partial {
		t.Errorf("clone: seq %d, full %v, partial %v; want 9, false, false", n.seq, n.full, n.partial)
	}
	if src.seq != 7 || !src.full || !src.partial {
		t.Error("clone changed its receiver")
	}
	// Shared, not copied: a clone's maker replaces a map it changes.
	if reflect.ValueOf(n.files).Pointer() != reflect.ValueOf(src.files).Pointer() || n.proj != src.proj || n.models != src.models {
		t.Error("clone copied what snapshots share")
	}
}

// field reads field i of the struct value v, unexported or not, as a value
// DeepEqual compares (reflect refuses Interface on unexported fields, so
// the comparison goes through a pointer of the field's own type).
func field(v reflect.Value, i int) any {
	f := v.Field(i)
	p := reflect.New(f.Type())
	p.Elem().Set(reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem())
	return p.Elem().Interface()
}
