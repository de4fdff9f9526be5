package docsite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/efmesh/efmesh/docsite"
	"github.com/efmesh/efmesh/internal/gen"
	"github.com/efmesh/efmesh/workspace"
)

// openGenerated writes the generated 2,000-model project and opens it
// (analysis included), applied to prod when apply is set.
func openGenerated(tb testing.TB, apply bool) *workspace.Workspace {
	tb.Helper()
	ctx := context.Background()
	dir := tb.TempDir()
	if _, err := gen.Write(dir, gen.Options{Models: 2000, Wide: true, Warehouse: "wh.duckdb"}); err != nil {
		tb.Fatal(err)
	}
	w, err := workspace.Open(ctx, dir, workspace.OpenOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(w.Close)
	if apply {
		if _, err := w.Apply(ctx, "prod", workspace.ApplyRequest{}); err != nil {
			tb.Fatal(err)
		}
	} else if _, err := w.OpenStore(ctx); err != nil {
		tb.Fatal(err)
	}
	return w
}

// BenchmarkSite2000 is the generation of the site of a 2,000-model
// project (wide models: 30 columns, joins, windows) over an opened
// workspace: pages, column lineage, rendered SQL, the environments and
// plans of the state store, and writing index.html and site.json.
func BenchmarkSite2000(b *testing.B) {
	w := openGenerated(b, false)
	out := b.TempDir()
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		site, err := docsite.Build(ctx, w, docsite.Options{Now: time.Now(), Store: w.Store, Plans: true, Render: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := docsite.Write(out, site); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSite2000InBrowser generates the site of the 2,000-model project
// applied to prod and checks the index page lists every model in the
// browser, within the time budget.
func TestSite2000InBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2,000-model project (-short)")
	}
	bin := chromium(t)
	w := openGenerated(t, true)
	out := t.TempDir()
	start := time.Now()
	site, err := docsite.Build(context.Background(), w, docsite.Options{Now: time.Now(), Store: w.Store, Plans: true, Render: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := docsite.Write(out, site); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	st, _ := os.Stat(filepath.Join(out, "index.html"))
	t.Logf("site of %d models generated in %s; index.html %d bytes", len(site.Models), took, st.Size())
	if len(site.Models) != 2001 {
		t.Fatalf("%d models in the site, want 2001 (2,000 and the source)", len(site.Models))
	}
	if took > 15*time.Second {
		t.Errorf("generating the site took %s (target 5 s)", took)
	}
	index := filepath.Join(out, "index.html")
	d := dom(t, bin, index, "")
	if listed := attrs(d, `<li class="model" data-model="([^"]+)"`); len(listed) != len(site.Models) {
		t.Errorf("index lists %d models of %d", len(listed), len(site.Models))
	}
	last := site.Models[len(site.Models)-1]
	d = dom(t, bin, index, "lineage="+last.Name+"."+last.Columns[0].Name)
	if raw := attrs(d, `<li class="up" data-column="([^"]+)" data-raw="true"`); len(raw) == 0 {
		t.Errorf("the lineage of %s.%s reaches no raw source", last.Name, last.Columns[0].Name)
	}
	screenshot(t, bin, index, "", "docs-2000-index.png")
}
