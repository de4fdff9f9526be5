package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/internal/testkit"
)

var updateScripts = flag.Bool("update-scripts", false, "rewrite the expected output in testdata/script/*.txtar")

// efmeshMain is the efmesh command of the scripts: the test binary, run
// under the name efmesh, calls Run as cmd/efmesh does (see TestMain).
func efmeshMain() {
	ctx, _ := WithSignals(context.Background())
	os.Exit(Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// TestScript runs testdata/script/*.txtar: each holds a project and the
// efmesh commands a user types, with the output they must print (compared
// with cmp after scrub). A script's commands run as separate processes of
// the real CLI, on a real DuckDB and SQLite state store in the script's own
// folder. Run with -update-scripts to rewrite the expected output.
//
// Every script starts with a pinned clock (EFMESH_NOW) and operator
// (EFMESH_USER); `env EFMESH_NOW=…` moves the clock.
func TestScript(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script"))
}

// scriptParams are the settings and commands of efmesh's scripts in dir:
// testdata/script's, and those TestDocs makes of the docs' shell blocks.
func scriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *updateScripts,
		Setup: func(env *testscript.Env) error {
			env.Setenv("EFMESH_NOW", "2026-02-01T06:00:00Z")
			env.Setenv("EFMESH_USER", "tester")
			env.Setenv("TZ", "UTC")
			env.Setenv("HOME", env.WorkDir)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"scrub":   scrub,
			"exits":   exits,
			"shop32":  shop32,
			"drop":    dropByHand,
			"sql":     sqlByHand,
			"parquet": csvToParquet,
			"example": exampleCmd,
			"corrupt": corruptByHand,
		},
	}
}

// exampleCmd copies a project of examples/ into the script's work
// folder, as a clone of the repository has it: `example hospital`.
func exampleCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: example NAME")
	}
	src, err := filepath.Abs(filepath.Join("..", "..", "..", "examples", args[0]))
	ts.Check(err)
	ts.Check(testkit.CopyDirErr(src, ts.Getenv("WORK")))
}

// shop32 writes the shared 32-model test project (testdata/projects/shop32.sh:
// seeds, views, incrementals, marts, reports and unit tests five generations
// deep) into the script's work folder, with its efmesh.yaml.
func shop32(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: shop32")
	}
	script, err := filepath.Abs(filepath.Join("testdata", "projects", "shop32.sh"))
	ts.Check(err)
	cmd := exec.Command("sh", script)
	cmd.Dir = ts.Getenv("WORK")
	if out, err := cmd.CombinedOutput(); err != nil {
		ts.Fatalf("shop32: %v\n%s", err, out)
	}
}

// dropByHand drops a model's physical table from the work folder's DuckDB
// warehouse, as a user would by hand behind efmesh's back: `drop core.c_0`
// drops _efmesh.core__c_0__<fp8>, whatever the fingerprint.
func dropByHand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || !strings.Contains(args[0], ".") {
		ts.Fatalf("usage: drop schema.model")
	}
	db, err := duckdb.Open(filepath.Join(ts.Getenv("WORK"), "efmesh.duckdb"))
	ts.Check(err)
	defer db.Close()
	ctx := context.Background()
	prefix := strings.Replace(args[0], ".", "__", 1) + "__"
	rows, err := db.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = '_efmesh' AND starts_with(table_name, '"+prefix+"')")
	ts.Check(err)
	if len(rows.Values) != 1 {
		ts.Fatalf("drop %s: %d physical tables, want 1", args[0], len(rows.Values))
	}
	ts.Check(db.Exec(ctx, fmt.Sprintf("DROP TABLE _efmesh.%v", rows.Values[0][0])))
}

// sqlByHand runs statements on the work folder's DuckDB warehouse, as a
// user would by hand behind efmesh's back: `sql 'ALTER TABLE @phys(core.c_0)
// ADD COLUMN z INTEGER'`, where @phys(m) is the model's physical table,
// whatever the fingerprint.
func sqlByHand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sql STATEMENTS")
	}
	db, err := duckdb.Open(filepath.Join(ts.Getenv("WORK"), "efmesh.duckdb"))
	ts.Check(err)
	defer db.Close()
	ctx := context.Background()
	phys := regexp.MustCompile(`@phys\(([a-z_0-9]+)\.([a-z_0-9]+)\)`)
	q := phys.ReplaceAllStringFunc(args[0], func(m string) string {
		g := phys.FindStringSubmatch(m)
		rows, err := db.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = '_efmesh' AND starts_with(table_name, '"+g[1]+"__"+g[2]+"__')")
		ts.Check(err)
		if len(rows.Values) != 1 {
			ts.Fatalf("sql: %s: %d physical tables, want 1", m, len(rows.Values))
		}
		return fmt.Sprintf("_efmesh.%v", rows.Values[0][0])
	})
	ts.Check(db.Exec(ctx, q))
}

// corruptByHand writes 64 KiB of random bytes into the work folder's DuckDB
// warehouse file, inside a block that holds a model's physical table, as a
// failing disk or a stray writer would: `corrupt med.moves`. The file's
// catalog stays readable; the table's rows in that block do not.
func corruptByHand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || !strings.Contains(args[0], ".") {
		ts.Fatalf("usage: corrupt schema.model")
	}
	path := filepath.Join(ts.Getenv("WORK"), "efmesh.duckdb")
	block, size := corruptibleBlock(ts, path, strings.Replace(args[0], ".", "__", 1)+"__")
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	ts.Check(err)
	defer f.Close()
	junk := make([]byte, 64<<10)
	r := rand.New(rand.NewPCG(33, 7))
	for i := range junk {
		junk[i] = byte(r.Uint32())
	}
	// A DuckDB file is three 4 KiB headers, then blocks of size bytes.
	_, err = f.WriteAt(junk, 3*4096+block*size+4096)
	ts.Check(err)
}

// corruptibleBlock is the block of the last column of the last row group
// of the physical table whose name starts with prefix, and the file's block size.
func corruptibleBlock(ts *testscript.TestScript, path, prefix string) (block, size int64) {
	db, err := duckdb.Open(path)
	ts.Check(err)
	defer db.Close()
	ctx := context.Background()
	rows, err := db.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = '_efmesh' AND starts_with(table_name, '"+prefix+"')")
	ts.Check(err)
	if len(rows.Values) != 1 {
		ts.Fatalf("corrupt: %d physical tables named %s…, want 1", len(rows.Values), prefix)
	}
	rows, err = db.Query(ctx, fmt.Sprintf("SELECT block_id, (SELECT block_size FROM pragma_database_size()) FROM pragma_storage_info('_efmesh.%v') WHERE block_id >= 0 ORDER BY row_group_id DESC, column_id DESC LIMIT 1", rows.Values[0][0]))
	ts.Check(err)
	b, ok1 := rows.Values[0][0].(int64)
	s, ok2 := rows.Values[0][1].(int64)
	if !ok1 || !ok2 {
		ts.Fatalf("corrupt: no storage block for %s…: %v", prefix, rows.Values)
	}
	return b, s
}

// csvToParquet writes a parquet file from a CSV file of the work folder,
// as a producer of data files would: `parquet data/in.csv data/out.parquet`
// (columns and types as DuckDB infers them from the CSV).
func csvToParquet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: parquet in.csv out.parquet")
	}
	db, err := duckdb.Open(":memory:")
	ts.Check(err)
	defer db.Close()
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	ts.Check(db.Exec(context.Background(), fmt.Sprintf("COPY (SELECT * FROM read_csv(%s)) TO %s (FORMAT parquet)", q(ts.MkAbs(args[0])), q(ts.MkAbs(args[1])))))
}

// exits runs a command, like exec, and fails unless it ends with the given
// exit code: `exits 2 efmesh apply dev`. (`! exec` accepts any failure;
// efmesh's exit codes are part of its interface.)
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits code command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad exit code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

// volatile are the parts of efmesh's output that differ between runs or
// machines, and what scrub writes instead. Fingerprints follow the bodies
// and the fingerprint version; a script states behaviour, not hashes.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b[0-9a-f]{64}\b`), "<fp>"},
	{regexp.MustCompile(`__[0-9a-f]{8}\b`), "__<fp8>"},
	{regexp.MustCompile(`\b\d{8}T\d{6}Z-[0-9a-f]{8}\b`), "<plan-id>"},
	{regexp.MustCompile(`\b[0-9a-f]{8}\b`), "<fp8>"},
	{regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s)\b`), "<duration>"},
	{regexp.MustCompile(`\btime=\S+`), "time=<time>"}, // log lines carry the wall clock
}

// scrub replaces the volatile parts of the last command's stdout and
// stderr (the work folder, fingerprints, plan ids, durations, wall-clock
// times) so that cmp
// can compare them: `exec efmesh plan dev`, `scrub`, `cmp stdout plan.txt`.
func scrub(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 0 {
		ts.Fatalf("usage: scrub")
	}
	work := ts.Getenv("WORK")
	clean := func(s string) string {
		s = strings.ReplaceAll(s, work, "$WORK")
		for _, v := range volatile {
			s = v.re.ReplaceAllString(s, v.with)
		}
		return s
	}
	stdout, stderr := ts.ReadFile("stdout"), ts.ReadFile("stderr")
	_, _ = ts.Stdout().Write([]byte(clean(stdout)))
	_, _ = ts.Stderr().Write([]byte(clean(stderr)))
}
