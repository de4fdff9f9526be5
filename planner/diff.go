package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// DiffOptions tunes Diff.
type DiffOptions struct {
	// Data compares the rows the two environments serve, for the models
	// named in Models (default: every model whose snapshots differ).
	Data   bool
	Models []string
	// Sample, a percentage in (0, 100), compares only the rows whose grain
	// hashes into the first Sample% of buckets — the same buckets on both
	// sides, so a key is sampled in both environments or in neither.
	Sample float64
}

// Model statuses in a diff.
const (
	DiffSame    = "same"    // both point at one snapshot
	DiffChanged = "changed" // different snapshots
	DiffOnlyA   = "only-a"
	DiffOnlyB   = "only-b"
)

// EnvDiff is what differs between two environments.
type EnvDiff struct {
	A      string      `json:"a"`
	B      string      `json:"b"`
	Models []ModelDiff `json:"models"`
}

// ModelDiff is one model of a diff.
type ModelDiff struct {
	Name   string    `json:"name"`
	Kind   string    `json:"kind"`
	A      string    `json:"a,omitempty"` // the fingerprint A points at
	B      string    `json:"b,omitempty"`
	Status string    `json:"status"`
	Data   *DataDiff `json:"data,omitempty"`
}

// DataDiff compares the rows two environments serve for one model.
type DataDiff struct {
	RowsA int64 `json:"rowsA"`
	RowsB int64 `json:"rowsB"`
	// Grain is the key rows are matched on; without one, only row counts
	// and schemas are compared.
	Grain []string `json:"grain,omitempty"`
	// Keys by grain: in both, only in A, only in B (a FULL OUTER JOIN).
	Matched int64 `json:"matched"`
	OnlyA   int64 `json:"onlyA"`
	OnlyB   int64 `json:"onlyB"`
	// Columns counts, per column both sides have (the grain aside), the
	// matched keys whose value differs.
	Columns []ColumnDiff `json:"columns"`
	Schema  SchemaDrift  `json:"schema"`
	Sample  float64      `json:"sample,omitempty"` // percent of keys compared; 0 = all
	Notes   []string     `json:"notes,omitempty"`
}

// ColumnDiff is the number of matched keys whose column differs.
type ColumnDiff struct {
	Name    string `json:"name"`
	Changed int64  `json:"changed"`
}

// SchemaDrift lists columns added in B, removed from A, and retyped.
type SchemaDrift struct {
	Added   []engine.Column `json:"added"`
	Removed []engine.Column `json:"removed"`
	Retyped []TypeChange    `json:"retyped"`
}

// TypeChange is a column whose type differs between the environments.
type TypeChange struct {
	Name string `json:"name"`
	A    string `json:"a"`
	B    string `json:"b"`
}

// Diff compares the pointers of environments a and b and, with
// opt.Data, the rows their views serve. It reads the state store and the
// warehouse and changes neither; the models are known from their stored
// snapshots, so a broken project does not stop a diff. wh may be nil
// without opt.Data.
func Diff(ctx context.Context, st state.Reader, wh engine.Engine, a, b string, opt DiffOptions) (*EnvDiff, error) {
	for _, env := range []string{a, b} {
		if err := analysis.ValidateEnv(env); err != nil {
			return nil, err
		}
	}
	if opt.Sample < 0 || opt.Sample > 100 {
		return nil, fmt.Errorf("diff: sample %g is not a percentage in (0, 100]", opt.Sample)
	}
	ea, err := ReadEnvironment(ctx, st, a)
	if err != nil {
		return nil, err
	}
	eb, err := ReadEnvironment(ctx, st, b)
	if err != nil {
		return nil, err
	}
	pa, pb := ea.Pointers, eb.Pointers
	for env, ptrs := range map[string]map[string]state.Pointer{a: pa, b: pb} {
		if len(ptrs) == 0 {
			return nil, fmt.Errorf("environment %s has no models: it was never applied", env)
		}
	}
	var fps []string
	names := map[string]bool{}
	for _, ptrs := range []map[string]state.Pointer{pa, pb} {
		for n, p := range ptrs {
			names[n] = true
			fps = append(fps, p.Fingerprint)
		}
	}
	snaps, err := st.Snapshots(ctx, fps)
	if err != nil {
		return nil, err
	}
	for _, n := range opt.Models {
		if !names[n] {
			return nil, fmt.Errorf("diff: model %s is in neither %s nor %s", n, a, b)
		}
	}
	out := &EnvDiff{A: a, B: b, Models: []ModelDiff{}}
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for n := range names {
			if !yield(n) {
				return
			}
		}
	}) {
		md := ModelDiff{Name: n, A: pa[n].Fingerprint, B: pb[n].Fingerprint}
		switch {
		case md.A == "":
			md.Status = DiffOnlyB
		case md.B == "":
			md.Status = DiffOnlyA
		case md.A == md.B:
			md.Status = DiffSame
		default:
			md.Status = DiffChanged
		}
		defA, defB := definitionIn(snaps, md.A), definitionIn(snaps, md.B)
		md.Kind = string(defB.Kind.Name)
		if md.Kind == "" {
			md.Kind = string(defA.Kind.Name)
		}
		want := slices.Contains(opt.Models, n) || len(opt.Models) == 0 && md.Status != DiffSame
		if opt.Data && want {
			if wh == nil {
				return nil, fmt.Errorf("diff: no warehouse")
			}
			dd, err := diffData(ctx, wh, a, b, n, md, defA, defB, opt.Sample)
			if err != nil {
				return nil, fmt.Errorf("diff %s: %w", n, err)
			}
			md.Data = dd
		}
		out.Models = append(out.Models, md)
	}
	return out, nil
}

func definitionIn(snaps map[string]state.Snapshot, fp string) analysis.Definition {
	var d analysis.Definition
	if s, ok := snaps[fp]; ok && len(s.Definition) > 0 {
		_ = json.Unmarshal(s.Definition, &d)
	}
	return d
}

// envView names the view of model name in env.
func envView(d engine.Dialect, env, name string) engine.Relation {
	s, t := analysis.SplitName(name)
	return analysis.EnvRelation(d, env, &project.Model{Schema: s, Table: t})
}

func diffData(ctx context.Context, wh engine.Engine, a, b, name string, md ModelDiff, defA, defB analysis.Definition, sample float64) (*DataDiff, error) {
	d := wh.Dialect()
	dd := &DataDiff{Columns: []ColumnDiff{}, Schema: SchemaDrift{Added: []engine.Column{}, Removed: []engine.Column{}, Retyped: []TypeChange{}}}
	switch md.Kind {
	case string(project.KindEmbedded):
		dd.Notes = append(dd.Notes, "an embedded model has no view to compare")
		return dd, nil
	case string(project.KindExternal):
		dd.Notes = append(dd.Notes, "an external model has no view to compare: every environment reads its source in place")
		return dd, nil
	}
	relA, relB := d.QuoteRelation(envView(d, a, name)), d.QuoteRelation(envView(d, b, name))
	var colsA, colsB []engine.Column
	var err error
	if md.A != "" {
		if colsA, err = wh.Describe(ctx, "SELECT * FROM "+relA); err != nil {
			return nil, err
		}
	}
	if md.B != "" {
		if colsB, err = wh.Describe(ctx, "SELECT * FROM "+relB); err != nil {
			return nil, err
		}
	}
	byA, byB := map[string]engine.Column{}, map[string]engine.Column{}
	for _, c := range colsA {
		byA[c.Name] = c
	}
	for _, c := range colsB {
		byB[c.Name] = c
		if ca, ok := byA[c.Name]; !ok && md.A != "" {
			dd.Schema.Added = append(dd.Schema.Added, c)
		} else if ok && ca.Type != c.Type {
			dd.Schema.Retyped = append(dd.Schema.Retyped, TypeChange{Name: c.Name, A: ca.Type, B: c.Type})
		}
	}
	for _, c := range colsA {
		if _, ok := byB[c.Name]; !ok && md.B != "" {
			dd.Schema.Removed = append(dd.Schema.Removed, c)
		}
	}

	// The grain both sides can be joined on.
	grain := defB.Grain
	if len(grain) == 0 || md.B == "" {
		grain = defA.Grain
	}
	if len(defA.Grain) > 0 && len(defB.Grain) > 0 && !slices.Equal(defA.Grain, defB.Grain) {
		dd.Notes = append(dd.Notes, fmt.Sprintf("the grain changed from (%s) to (%s): keys are matched on (%s)",
			strings.Join(defA.Grain, ", "), strings.Join(defB.Grain, ", "), strings.Join(grain, ", ")))
	}
	for _, k := range grain {
		_, inA := byA[k]
		_, inB := byB[k]
		if md.A != "" && !inA || md.B != "" && !inB {
			dd.Notes = append(dd.Notes, fmt.Sprintf("grain column %s is missing on one side: keys are not compared", k))
			grain = nil
			break
		}
	}
	dd.Grain = grain

	where := ""
	if sample > 0 && sample < 100 {
		if len(grain) == 0 {
			dd.Notes = append(dd.Notes, "no grain to sample by: every row is compared")
		} else {
			keys := make([]string, len(grain))
			for i, k := range grain {
				keys[i] = "CAST(" + d.Quote(k) + " AS VARCHAR)"
			}
			// md5 is hex text in DuckDB and Postgres alike: comparing its
			// first four digits with a threshold keeps sample% of 65,536
			// buckets, the same ones on both sides.
			threshold := fmt.Sprintf("%04x", int(sample/100*65536))
			where = " WHERE substr(md5(concat_ws('|', " + strings.Join(keys, ", ") + ")), 1, 4) < " + d.Literal(threshold)
			dd.Sample = sample
		}
	}
	count := func(rel string) (int64, error) {
		rows, err := wh.Query(ctx, "SELECT count(*) FROM "+rel+where)
		if err != nil {
			return 0, err
		}
		return toInt64(rows.Values[0][0]), nil
	}
	if md.A != "" {
		if dd.RowsA, err = count(relA); err != nil {
			return nil, err
		}
	}
	if md.B != "" {
		if dd.RowsB, err = count(relB); err != nil {
			return nil, err
		}
	}
	if len(grain) == 0 || md.A == "" || md.B == "" {
		return dd, nil
	}

	isKey := map[string]bool{}
	on := make([]string, len(grain))
	for i, k := range grain {
		isKey[k] = true
		on[i] = "_efmesh_a." + d.Quote(k) + " = _efmesh_b." + d.Quote(k)
	}
	var common []string
	for _, c := range colsA {
		if _, ok := byB[c.Name]; ok && !isKey[c.Name] {
			common = append(common, c.Name)
		}
	}
	both := "_efmesh_a._efmesh_in AND _efmesh_b._efmesh_in"
	sel := []string{
		"count(*) FILTER (WHERE " + both + ")",
		"count(*) FILTER (WHERE _efmesh_b._efmesh_in IS NULL)",
		"count(*) FILTER (WHERE _efmesh_a._efmesh_in IS NULL)",
	}
	for _, c := range common {
		ca, cb := "_efmesh_a."+d.Quote(c), "_efmesh_b."+d.Quote(c)
		if engine.TypeFamily(byA[c].Type) != engine.TypeFamily(byB[c].Type) {
			ca, cb = "CAST("+ca+" AS VARCHAR)", "CAST("+cb+" AS VARCHAR)"
		}
		sel = append(sel, "count(*) FILTER (WHERE "+both+" AND "+ca+" IS DISTINCT FROM "+cb+")")
	}
	q := "SELECT " + strings.Join(sel, ", ") +
		" FROM (SELECT *, true AS _efmesh_in FROM " + relA + where + ") AS _efmesh_a" +
		" FULL OUTER JOIN (SELECT *, true AS _efmesh_in FROM " + relB + where + ") AS _efmesh_b ON " + strings.Join(on, " AND ")
	rows, err := wh.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	r := rows.Values[0]
	dd.Matched, dd.OnlyA, dd.OnlyB = toInt64(r[0]), toInt64(r[1]), toInt64(r[2])
	for i, c := range common {
		dd.Columns = append(dd.Columns, ColumnDiff{Name: c, Changed: toInt64(r[3+i])})
	}
	sort.SliceStable(dd.Columns, func(i, j int) bool { return dd.Columns[i].Changed > dd.Columns[j].Changed })
	return dd, nil
}
