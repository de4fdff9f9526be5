package analysis

import (
	"context"
	"testing"

	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/project"
)

// TestOwnHashesMatchAnalysis: the own hash of a model computed alone is the
// one the analysis of the whole project gives it, for every kind of model
// of a project (seeds, externals, incremental models, refs, variables) and
// of the shared corpus.
func TestOwnHashesMatchAnalysis(t *testing.T) {
	wb, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	corpus, err := project.Load("../testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	ca, err := Analyze(context.Background(), corpus, wb)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []*Analysis{analyzeFiles(t, baseFiles()), ca} {
		hashes, errs := OwnHashes(a.Project, a.Project.Models, wb)
		n := 0
		for i, m := range a.Project.Models {
			want := a.Models[m.Name].OwnHash
			if want == "" {
				continue
			}
			n++
			if errs[i] != nil || hashes[i] != want {
				t.Errorf("%s: own hash %q (%v), the analysis gives %q", m.Name, hashes[i], errs[i], want)
			}
		}
		if n < 3 {
			t.Fatalf("only %d models hashed", n)
		}
	}
}

// TestOwnHashesRefuse: a body the engine cannot parse, or one with @this,
// has no own hash, and says why.
func TestOwnHashesRefuse(t *testing.T) {
	wb, err := duckdb.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	p, err := project.Load("../testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	var models []*project.Model
	for _, src := range []string{
		"MODEL (name x.a);\nSELECT 1 FROM WHERE",
		"MODEL (name x.b);\nSELECT * FROM @this",
		"MODEL (name x.c);\nSELECT 1 AS one",
	} {
		m, _ := project.ParseModel("models/x.sql", []byte(src))
		models = append(models, m)
	}
	hashes, errs := OwnHashes(p, models, wb)
	for i := range 2 {
		if errs[i] == nil || hashes[i] != "" {
			t.Errorf("model %d: hash %q, error %v; want an error", i, hashes[i], errs[i])
		}
	}
	if errs[2] != nil || hashes[2] == "" {
		t.Errorf("SELECT 1: hash %q, error %v", hashes[2], errs[2])
	}
}
