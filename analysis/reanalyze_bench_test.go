package analysis

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/project"
)

// BenchmarkReanalyze measures the analysis of one keystroke the way the
// editor makes it (Project.WithBody, then Reanalyze): n models in chains
// of five over one EXTERNAL table, the last of every chain broken, and the
// middle model of a chain alternately broken and fixed, so every edit
// changes a schema and what is reported.
func BenchmarkReanalyze(b *testing.B) {
	for _, n := range []int{2000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			files := map[string]string{
				"efmesh.yaml":           "name: t\n",
				"models/raw/events.sql": "MODEL (name raw.events, kind EXTERNAL (table src.events), columns (id INTEGER, value DOUBLE));\n",
			}
			body := func(chain, step int, col string) string {
				parent := "raw.events"
				if step > 0 {
					parent = fmt.Sprintf("m.c%05d_%d", chain, step-1)
				}
				return fmt.Sprintf("MODEL (name m.c%05d_%d, kind FULL);\nSELECT p.id, p.%s + 1 AS value FROM @ref(%s) AS p\n", chain, step, col, parent)
			}
			for i := range n {
				col := "value"
				if i%5 == 4 {
					col = "valu"
				}
				files[fmt.Sprintf("models/m/c%05d_%d.sql", i/5, i%5)] = body(i/5, i%5, col)
			}
			dir := testkit.WriteProject(b, files)
			p, err := project.Load(dir)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			wb, err := duckdb.Open("")
			if err != nil {
				b.Fatal(err)
			}
			defer wb.Close()
			a, err := Analyze(ctx, p, wb)
			if err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("m.c%05d_2", n/10)
			var texts [2][]byte
			for k, col := range []string{"valu", "value"} {
				texts[k] = []byte(body(n/10, 2, col))
			}
			i := 0
			for b.Loop() {
				b.StopTimer()
				old := a.Project.ByName[name]
				m, diags := project.ParseModel(old.File, texts[i%2])
				_, was := project.ParseModel(old.File, old.Source)
				np := a.Project.WithBody(m, was, diags)
				if np == nil {
					b.Fatal("WithBody declined the edit")
				}
				i++
				b.StartTimer()
				if a, err = Reanalyze(ctx, a, np, wb); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
