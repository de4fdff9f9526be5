package format

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestHunks: the edits of each golden's layout give the layout when all
// are applied, and touch nothing that does not change.
func TestHunks(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if f.Name != "in.sql" {
				continue
			}
			out, err := Source(f.Data)
			if err != nil {
				t.Fatal(err)
			}
			edits := Hunks(f.Data, out)
			if got := Apply(f.Data, edits); string(got) != string(out) {
				t.Errorf("%s: the edits gave\n%s\nwant\n%s", file, got, out)
			}
			for i, e := range edits {
				if e.End < e.Start || i > 0 && edits[i-1].End >= e.Start {
					t.Errorf("%s: edit %d (%d-%d) is out of order or touches the one before", file, i, e.Start, e.End)
				}
				if string(f.Data[e.Start:e.End]) == e.Text {
					t.Errorf("%s: edit %d changes nothing", file, i)
				}
			}
		}
	}
}

// TestRange: a range inside one CTE changes only that CTE; the rest,
// formatted later, gives the whole file's layout.
func TestRange(t *testing.T) {
	src := []byte("model (name m.m, kind view);\n" +
		"with a as (select x, -- c\n y from t), b as (select * from a)\n" +
		"select a.x from a join b using (x)\n")
	start := strings.Index(string(src), "select x")
	end := strings.Index(string(src), "from t") + len("from t")
	edits, whole, err := Range(src, start, end)
	if err != nil {
		t.Fatal(err)
	}
	if len(edits) == 0 {
		t.Fatal("no edits inside the range")
	}
	for _, e := range edits {
		if e.Start < start || e.End > end {
			t.Errorf("edit %d-%d is outside the range %d-%d", e.Start, e.End, start, end)
		}
	}
	part := Apply(src, edits)
	if !strings.HasPrefix(string(part), "model (name m.m, kind view);\nwith a as (") ||
		!strings.HasSuffix(string(part), "), b as (select * from a)\nselect a.x from a join b using (x)\n") {
		t.Errorf("text outside the range changed:\n%s", part)
	}
	again, err := Source(part)
	if err != nil || string(again) != string(whole) {
		t.Errorf("formatting the rest gave\n%s\nwant\n%s", again, whole)
	}
	// Nothing in an empty range at the start of the file.
	if edits, _, _ := Range(src, 0, 0); len(edits) != 0 {
		t.Errorf("an empty range at the start gave %d edits", len(edits))
	}
}
