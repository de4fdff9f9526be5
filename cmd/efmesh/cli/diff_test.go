package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

type diffOut struct {
	APIVersion int    `json:"apiVersion"`
	A          string `json:"a"`
	B          string `json:"b"`
	Models     []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		A      string `json:"a"`
		B      string `json:"b"`
		Data   *struct {
			RowsA   int64    `json:"rowsA"`
			RowsB   int64    `json:"rowsB"`
			Grain   []string `json:"grain"`
			Matched int64    `json:"matched"`
			OnlyA   int64    `json:"onlyA"`
			OnlyB   int64    `json:"onlyB"`
			Sample  float64  `json:"sample"`
			Columns []struct {
				Name    string `json:"name"`
				Changed int64  `json:"changed"`
			} `json:"columns"`
			Schema struct {
				Added   []struct{ Name, Type string } `json:"added"`
				Removed []struct{ Name, Type string } `json:"removed"`
				Retyped []struct{ Name, A, B string } `json:"retyped"`
			} `json:"schema"`
			Notes []string `json:"notes"`
		} `json:"data"`
	} `json:"models"`
}

func diffOf(t *testing.T, dir string, args ...string) diffOut {
	t.Helper()
	out := mustRun(t, dir, append([]string{"diff", "--json"}, args...)...)
	var d diffOut
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.APIVersion != 1 {
		t.Fatalf("diff --json: %v\n%s", err, out)
	}
	return d
}

// TestDiffData: a breaking edit changes the amount of two of eight
// accounts, upper-cases one name, drops one account, retypes a column and
// adds another; diff --data reports exactly that.
func TestDiffData(t *testing.T) {
	var seed strings.Builder
	seed.WriteString("id,owner,amount,branch\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&seed, "%d,owner%d,%d,%d\n", i, i, i*100, i%3)
	}
	dir := writeProject(t, map[string]string{
		"efmesh.yaml":    "name: d\n",
		"seeds/acc.csv":  seed.String(),
		"models/acc.sql": "MODEL (name raw.acc, kind SEED (path 'seeds/acc.csv'), grain (id),\n  columns (id INTEGER, owner TEXT, amount INTEGER, branch INTEGER));\n",
		"models/balances.sql": `MODEL (name core.balances, kind FULL, grain (id));
SELECT id, owner, amount, branch FROM @ref(raw.acc)
`,
	})
	mustRun(t, dir, "apply", "prod", "--yes")
	mustRun(t, dir, "apply", "dev", "--yes")
	if d := diffOf(t, dir, "prod", "dev", "--data"); len(d.Models) != 2 || d.Models[0].Status != "same" || d.Models[0].Data != nil {
		t.Fatalf("diff of equal environments: %+v", d)
	}

	editFile(t, dir, "models/balances.sql", func(string) string {
		return `MODEL (name core.balances, kind FULL, grain (id));
SELECT id,
       CASE WHEN id = 3 THEN upper(owner) ELSE owner END AS owner,
       CASE WHEN id IN (2, 5) THEN amount + 1 ELSE amount END AS amount,
       branch::TEXT AS branch,
       amount * 2 AS doubled
FROM @ref(raw.acc)
WHERE id <> 8
`
	})
	mustRun(t, dir, "apply", "dev", "--yes")

	d := diffOf(t, dir, "prod", "dev", "--data")
	if len(d.Models) != 2 || d.Models[0].Name != "core.balances" || d.Models[0].Status != "changed" || d.Models[1].Status != "same" {
		t.Fatalf("models: %+v", d.Models)
	}
	dd := d.Models[0].Data
	if dd == nil {
		t.Fatal("no data diff for core.balances")
	}
	var cols []string
	for _, c := range dd.Columns {
		cols = append(cols, fmt.Sprintf("%s=%d", c.Name, c.Changed))
	}
	got := fmt.Sprintf("rows %d/%d keys %v: both %d, only prod %d, only dev %d; changed %v; added %v removed %v retyped %v",
		dd.RowsA, dd.RowsB, dd.Grain, dd.Matched, dd.OnlyA, dd.OnlyB, cols, dd.Schema.Added, dd.Schema.Removed, dd.Schema.Retyped)
	// branch changes type, not value: compared as text, no row differs.
	want := "rows 8/7 keys [id]: both 7, only prod 1, only dev 0; changed [amount=2 owner=1 branch=0]; " +
		"added [{doubled INTEGER}] removed [] retyped [{branch INTEGER VARCHAR}]"
	if got != want {
		t.Fatalf("data diff:\n got %s\nwant %s", got, want)
	}

	// A sample: the same keys on both sides, so nothing is "only" in one
	// side but the dropped account, if sampled.
	d = diffOf(t, dir, "prod", "dev", "--data", "--sample", "50", "--model", "core.balances")
	s := d.Models[0].Data
	if s.Sample != 50 || s.RowsA >= 8 || s.RowsA == 0 || s.Matched+s.OnlyA != s.RowsA || s.Matched+s.OnlyB != s.RowsB || s.OnlyB != 0 || s.OnlyA > 1 {
		t.Fatalf("sampled diff: %+v", s)
	}

	out := mustRun(t, dir, "diff", "prod", "dev", "--data")
	for _, line := range []string{
		"~ core.balances  prod ",
		"keys (id): 7 in both, 1 only in prod, 0 only in dev",
		"changed values among keys in both: amount 2, owner 1, branch 0",
		"+ column doubled INTEGER",
		"~ column branch INTEGER → VARCHAR",
		"= 1 model(s) point at the same snapshot",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("diff output lacks %q:\n%s", line, out)
		}
	}
	if code, _, errs := run(t, dir, "diff", "prod", "nope"); code != ExitError || !strings.Contains(errs, "environment nope has no models") {
		t.Errorf("diff with an unknown environment: exit %d, %s", code, errs)
	}
}
