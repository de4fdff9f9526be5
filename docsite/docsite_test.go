package docsite_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/docsite"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/workspace"
)

// hospitalSite applies examples/hospital (a copy) to dev and prod and
// writes its site; it returns the site and the directory holding it.
func hospitalSite(t *testing.T) (*docsite.Site, string) {
	t.Helper()
	ctx := context.Background()
	dir := testkit.Example(t, "hospital")
	w, err := workspace.Open(ctx, dir, workspace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, env := range []string{"dev", "prod"} {
		if _, err := w.Apply(ctx, env, workspace.ApplyRequest{}); err != nil {
			t.Fatalf("apply %s: %v", env, err)
		}
	}
	site, err := docsite.Build(ctx, w, docsite.Options{Now: time.Now(), Store: w.Store, Plans: true, Render: true})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "site")
	if err := docsite.Write(out, site); err != nil {
		t.Fatal(err)
	}
	return site, out
}

func model(t *testing.T, s *docsite.Site, name string) docsite.Model {
	t.Helper()
	for _, m := range s.Models {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no model %s in the site", name)
	return docsite.Model{}
}

// upstream walks the columns ref is computed from, as the page does.
func upstream(s *docsite.Site, ref string) []string {
	src := map[string][]string{}
	for _, m := range s.Models {
		for _, c := range m.Columns {
			src[m.Name+"."+c.Name] = c.Sources
		}
	}
	var out []string
	seen := map[string]bool{}
	todo := []string{ref}
	for len(todo) > 0 {
		r := todo[0]
		todo = todo[1:]
		for _, s := range src[r] {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
				todo = append(todo, s)
			}
		}
	}
	return out
}

func TestHospitalSite(t *testing.T) {
	site, out := hospitalSite(t)
	if site.Project != "hospital" {
		t.Errorf("project %q", site.Project)
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "models", "*", "*.sql"))
	if len(site.Models) != len(files) || len(files) == 0 {
		t.Fatalf("%d models in the site, %d model files", len(site.Models), len(files))
	}

	moves := model(t, site, "raw.moves")
	if moves.Kind != "EXTERNAL" || moves.Owner != "integration" || moves.Description != "Raw patient moves (CSV export)" {
		t.Errorf("raw.moves: %+v", moves)
	}
	if len(moves.Columns) != 4 || moves.Columns[0].Name != "move_id" || !strings.EqualFold(moves.Columns[0].Type, "TEXT") && !strings.EqualFold(moves.Columns[0].Type, "VARCHAR") || !moves.Columns[0].Declared {
		t.Errorf("raw.moves columns: %+v", moves.Columns)
	}

	stays := model(t, site, "med.stays")
	if !strings.Contains(stays.SQL, "MODEL (") || stays.Rendered == "" || strings.Contains(stays.Rendered, "@ref") {
		t.Errorf("med.stays SQL as written %q, rendered %q (%s)", stays.SQL, stays.Rendered, stays.RenderError)
	}
	if !slices.Contains(stays.Tests, "stays_are_stitched") {
		t.Errorf("med.stays tests: %v", stays.Tests)
	}
	envs := map[string]bool{}
	for _, v := range stays.Versions {
		envs[v.Env] = true
		if !v.Current || v.Fingerprint != stays.Fingerprint {
			t.Errorf("med.stays in %s: %+v, checkout %s", v.Env, v, stays.Fingerprint)
		}
	}
	if !envs["dev"] || !envs["prod"] {
		t.Errorf("med.stays versions: %+v", stays.Versions)
	}

	// A column of a view on med.stays traces down to the raw CSV's column.
	up := upstream(site, "mart.longest_stays.stay_id")
	if !slices.Contains(up, "med.stays.stay_id") || !slices.Contains(up, "raw.moves.move_id") {
		t.Errorf("lineage of mart.longest_stays.stay_id: %v", up)
	}

	if len(site.Envs) != 2 || site.Envs[0].Name != "dev" || site.Envs[1].Name != "prod" {
		t.Fatalf("environments: %+v", site.Envs)
	}
	for _, e := range site.Envs {
		if !e.Status.Applied || e.Status.LastPlan == nil {
			t.Errorf("%s: %+v", e.Name, e.Status)
		}
	}
	if len(site.Plans) != 2 {
		t.Fatalf("plans: %+v", site.Plans)
	}
	for _, p := range site.Plans {
		if p.Error != "" || p.Plan == nil || p.Plan.HasChanges {
			t.Errorf("plan of the applied checkout against %s: %+v", p.Env, p)
		}
	}

	// index.html embeds the same data; site.json holds it too.
	html, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `"name":"mart.longest_stays"`) || strings.Contains(string(html), "src=\"http") {
		t.Errorf("index.html does not embed the data, or loads a remote script")
	}
	var back docsite.Site
	raw, err := os.ReadFile(filepath.Join(out, "site.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &back); err != nil || len(back.Models) != len(site.Models) {
		t.Errorf("site.json: %v, %d models", err, len(back.Models))
	}
}

// TestHTMLKeepsDataInItsScript: SQL holding "</script>" stays data.
func TestHTMLKeepsDataInItsScript(t *testing.T) {
	site := &docsite.Site{Project: "p", Models: []docsite.Model{{Name: "a.b", SQL: "SELECT '</script><script>alert(1)</script>' AS x"}}}
	html, err := docsite.HTML(site, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(html), "<script>alert(1)") || strings.Count(string(html), "</script>") != 2 {
		t.Errorf("the model's SQL escaped its script tag:\n%s", html)
	}
}
