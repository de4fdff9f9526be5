// Package gen writes synthetic efmesh projects for benchmarks: N FULL
// models in chains of five over one EXTERNAL table of 1,000 rows (the shape
// of the original's plan benchmark), or wide models (30 columns, joins and
// window functions) for the editor's checker; and the macro twins: the same
// project where every other model calls project macros, or writes the
// same SQL out by hand.
package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Options shape a generated project.
type Options struct {
	Models int  // number of models besides the external source
	Wide   bool // 30-column models with joins and window functions
	// Warehouse is the engine path written to efmesh.yaml; default
	// ":memory:" so benchmarks measure efmesh, not the disk.
	Warehouse string
	// Parquet makes the source read data/events.parquet instead of
	// data/events.csv (the shape of the benchmark). gen knows no
	// engine, so it still writes the CSV: the caller converts it
	// (CSVData into ParquetData) before the first plan.
	Parquet bool
	// Macros makes the even models (half of them, the first of every
	// other chain among them) macro models: MacroCalls writes them with
	// calls of the project macros of MacroFile, MacrosByHand with the
	// same SQL written out (their expansion, byte for byte) and no macro
	// file. NoMacros (the zero value) writes the plain project. Not with
	// Wide.
	Macros Macros
}

// Macros says how a generated project writes its macro models.
type Macros int

const (
	NoMacros     Macros = iota // the plain project
	MacroCalls                 // macro models call the project macros
	MacrosByHand               // the same SQL written out: the twin
)

// MacroFile is the macro file of a MacroCalls project.
const MacroFile = "macros/bench.sql"

// macroLib are the project macros a MacroCalls project calls: an
// expression macro, a select-list macro over @EACH and a macro calling
// another.
const macroLib = `-- Project macros of the benchmark project.

-- x plus k: an expression macro.
MACRO bump(x, k) AS @x + @k;

-- The columns named, as a select list.
MACRO keys(cols) AS @EACH(@cols, c -> c);

-- x is at least k.
MACRO at_least(x, k) AS @x >= @k;

-- x is not negative: a macro calling another.
MACRO non_negative(x) AS @at_least(@x, 0);
`

// IsMacroModel reports whether model i is a macro model of a project
// generated with Macros other than NoMacros.
func IsMacroModel(i int) bool { return i%2 == 0 }

// The source files a Parquet project reads and the CSV they are made from.
const (
	CSVData     = "data/events.csv"
	ParquetData = "data/events.parquet"
)

// Write creates the project in dir (which must exist) and returns the
// model names in creation order, the source first.
func Write(dir string, o Options) ([]string, error) {
	wh := o.Warehouse
	if wh == "" {
		wh = ":memory:"
	}
	files := map[string]string{
		"efmesh.yaml": fmt.Sprintf("name: bench\nstart: 2026-01-01\nengine: {type: duckdb, path: %q}\nstate: {type: sqlite, path: .efmesh/state.db}\n", wh),
	}
	var csv strings.Builder
	csv.WriteString("id,grp,amount,label,ts\n")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&csv, "%d,%d,%d.%02d,label %d,2026-01-%02d 10:00:00\n", i, i%17, i%500, i%100, i%31, 1+i%28)
	}
	files[CSVData] = csv.String()
	source := "files '" + CSVData + "', format csv, header true"
	if o.Parquet {
		source = "files '" + ParquetData + "', format parquet"
	}
	files["models/raw/events.sql"] = `MODEL (
  name raw.events,
  kind EXTERNAL (` + source + `),
  columns (id BIGINT, grp INTEGER, amount DOUBLE, label TEXT, ts TIMESTAMP)
);
`
	if o.Macros == MacroCalls {
		files[MacroFile] = macroLib
	}
	names := []string{"raw.events"}
	for i := 0; i < o.Models; i++ {
		name := fmt.Sprintf("m.model_%05d", i)
		parent := "raw.events"
		if i%5 != 0 {
			parent = fmt.Sprintf("m.model_%05d", i-1)
		}
		var body string
		if o.Wide {
			body = wideModel(name, parent, i%5 == 0)
		} else if o.Macros == MacroCalls && IsMacroModel(i) {
			body = fmt.Sprintf(`MODEL (
  name %s,
  kind FULL,
  columns (id BIGINT, grp INTEGER, amount DOUBLE, label TEXT, ts TIMESTAMP)
);

SELECT @keys([id, grp]), @bump(amount, %d) AS amount, label, ts
FROM @ref(%s)
WHERE @non_negative(id)
`, name, i%7, parent)
		} else {
			// The plain model, and the expansion of a macro model.
			body = fmt.Sprintf(`MODEL (
  name %s,
  kind FULL,
  columns (id BIGINT, grp INTEGER, amount DOUBLE, label TEXT, ts TIMESTAMP)
);

SELECT id, grp, amount + %d AS amount, label, ts
FROM @ref(%s)
WHERE id >= 0
`, name, i%7, parent)
		}
		files[fmt.Sprintf("models/m/model_%05d.sql", i)] = body
		names = append(names, name)
	}
	for rel, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// wideModel is a 30-column model joining its parent to itself with window
// functions; the first of a chain reads the 5-column source.
func wideModel(name, parent string, first bool) string {
	var cols, sel []string
	cols = append(cols, "id BIGINT", "grp INTEGER", "amount DOUBLE", "label TEXT", "ts TIMESTAMP")
	sel = append(sel, "p.id", "p.grp", "p.amount", "p.label", "p.ts")
	for k := 0; k < 25; k++ {
		cols = append(cols, fmt.Sprintf("c%02d DOUBLE", k))
		switch k % 3 {
		case 0:
			sel = append(sel, fmt.Sprintf("sum(p.amount) OVER (PARTITION BY p.grp ORDER BY p.ts ROWS BETWEEN %d PRECEDING AND CURRENT ROW) AS c%02d", k%5+1, k))
		case 1:
			sel = append(sel, fmt.Sprintf("coalesce(q.amount, 0) * %d.5 AS c%02d", k, k))
		default:
			sel = append(sel, fmt.Sprintf("CAST(lag(p.id, %d) OVER (ORDER BY p.id) AS DOUBLE) AS c%02d", k%4+1, k))
		}
	}
	return fmt.Sprintf(`MODEL (
  name %s,
  kind FULL,
  grain (id),
  columns (%s)
);

WITH q AS (
  SELECT grp, avg(amount) AS amount FROM @ref(%s) GROUP BY ALL
)
SELECT
  %s
FROM @ref(%s) AS p
LEFT JOIN q ON q.grp = p.grp
QUALIFY row_number() OVER (PARTITION BY p.id ORDER BY p.ts DESC) = 1
`, name, strings.Join(cols, ", "), parent, strings.Join(sel, ",\n  "), parent)
}
