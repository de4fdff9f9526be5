package format

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the want.sql sections of testdata/*.txtar")

// TestGoldens formats each testdata/*.txtar's in.sql and compares with its
// want.sql; formatting want.sql again must give want.sql (idempotence).
func TestGoldens(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no goldens")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var in, want *txtar.File
			for i := range ar.Files {
				switch ar.Files[i].Name {
				case "in.sql":
					in = &ar.Files[i]
				case "want.sql":
					want = &ar.Files[i]
				}
			}
			if in == nil {
				t.Fatal("no in.sql")
			}
			got, err := Source(in.Data)
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				if want == nil {
					ar.Files = append(ar.Files, txtar.File{Name: "want.sql"})
					want = &ar.Files[len(ar.Files)-1]
				}
				want.Data = got
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want == nil || string(got) != string(want.Data) {
				t.Fatalf("format gave\n%s\nwant\n%s", got, wantText(want))
			}
			again, err := Source(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(got) {
				t.Fatalf("not idempotent: formatting again gave\n%s", again)
			}
		})
	}
}

func wantText(f *txtar.File) string {
	if f == nil {
		return "(no want.sql)"
	}
	return string(f.Data)
}

// TestKeepsTokens: a text that does not parse keeps every token (the
// layout works on tokens, never on a parse).
func TestKeepsTokens(t *testing.T) {
	for _, src := range []string{
		"select (a, from b where",
		"MODEL (name x, kind FULL\nselect 1",
		"select 'unterminated",
		"/* open comment",
		"select - -1, a - -b, 1--c\n, x/*y*/ from t",
		"",
		"-- only a comment",
	} {
		got, err := Source([]byte(src))
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		again, err := Source(got)
		if err != nil || string(again) != string(got) {
			t.Errorf("%q: not idempotent: %q then %q (%v)", src, got, again, err)
		}
	}
}

// FuzzSource: any text formats without error to the same tokens (checked
// inside Source), and formatting the result again changes nothing.
func FuzzSource(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, x := range ar.Files {
			f.Add(string(x.Data))
		}
	}
	f.Add("select a -- c\n, b from t where x between 1 and 2 and y or z")
	f.Fuzz(func(t *testing.T, src string) {
		got, err := Source([]byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		again, err := Source(got)
		if err != nil || string(again) != string(got) {
			t.Fatalf("%q: not idempotent:\n%s\nthen\n%s (%v)", src, got, again, err)
		}
	})
}
