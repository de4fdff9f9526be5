package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the efmesh command, so that tests
// can run it as separate processes (locks, kill -9), and the scripts of
// testdata/script as the efmesh on their PATH.
func TestMain(m *testing.M) {
	if path := os.Getenv("EFMESH_TEST_HOLD_WAREHOUSE"); path != "" {
		os.Exit(holdWarehouse(path))
	}
	if os.Getenv("EFMESH_TEST_AS_CLI") == "1" {
		ctx, _ := WithSignals(context.Background())
		os.Exit(Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	testscript.Main(m, map[string]func(){"efmesh": efmeshMain})
}

// holdWarehouse opens the DuckDB file at path for writing, as a run or an
// apply does, says "held" on stdout and keeps it until stdin closes.
func holdWarehouse(path string) int {
	db, err := duckdb.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer db.Close()
	fmt.Println("held")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// warehouseHolder starts a process that writes dir's warehouse file until
// the returned release is called; it returns once the file is held.
func warehouseHolder(t *testing.T, dir string) (pid int, release func()) {
	t.Helper()
	// The plans under test take the full path, which opens the warehouse;
	// a plan answered from the no-op digest an apply left never does.
	forgetNoop(t, dir)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "EFMESH_TEST_HOLD_WAREHOUSE="+filepath.Join(dir, "efmesh.duckdb"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "held\n" {
		_ = cmd.Wait()
		t.Fatalf("the warehouse holder did not start: %q\n%s", line, errb.String())
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				t.Errorf("the warehouse holder: %v\n%s", err, errb.String())
			}
		})
	}
	t.Cleanup(release)
	return cmd.Process.Pid, release
}

// cliProcess returns efmesh as a separate process on dir.
func cliProcess(dir string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(os.Args[0], append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "EFMESH_TEST_AS_CLI=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return cmd, &out, &errb
}

const tickHours = 90 * 24

// ticksProject has a synthetic source of one row a minute over 90 days and
// an hourly incremental model over it in batches of one interval: a long
// backfill of small transactions.
func ticksProject(t *testing.T) string {
	return writeProject(t, map[string]string{
		"efmesh.yaml": "name: ticks\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"models/raw/ticks.sql": fmt.Sprintf(`MODEL (
  name raw.ticks,
  kind FULL,
  columns (id BIGINT, ts TIMESTAMP)
);

SELECT i AS id, TIMESTAMP '2026-01-01' + to_minutes(i) AS ts
FROM range(0, %d * 60) AS t(i)
`, tickHours),
		"models/core/hourly.sql": `MODEL (
  name core.hourly,
  kind INCREMENTAL_BY_TIME_RANGE (time_column hour, batch_size 1),
  interval hour,
  columns (hour TIMESTAMP, n BIGINT, first_id BIGINT)
);

SELECT date_trunc('hour', ts) AS hour, count(*) AS n, min(id) AS first_id
FROM @ref(raw.ticks)
WHERE ts >= @start AND ts < @end
GROUP BY ALL
`,
	})
}

func doneCount(t *testing.T, dir, fp string) int {
	t.Helper()
	ivs, err := openState(t, dir).Intervals(context.Background(), fp)
	if err != nil {
		t.Fatal(err)
	}
	return len(ivs)
}

// TestKillMidBackfill kills -9 an apply in the middle of a multi-batch
// backfill. While it runs, a second apply and a run tick meet its lock;
// after the kill, the next apply proceeds at once (the holder is gone) and
// resumes: the table equals a clean run's, with every interval done once.
func TestKillMidBackfill(t *testing.T) {
	t.Setenv("EFMESH_NOW", "2026-04-01T00:00:00Z") // 90 days after the start
	dir := ticksProject(t)
	fp := ""
	for _, m := range planJSONOf(t, dir, "dev").Models {
		if m.Name == "core.hourly" {
			fp = m.Fingerprint
		}
	}

	holder, _, holderErr := cliProcess(dir, "apply", "dev", "--yes")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- holder.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for doneCount(t, dir, fp) < 100 {
		select {
		case err := <-exited:
			t.Fatalf("the apply ended before it could be killed (%v): the backfill is too fast for this test\n%s", err, holderErr)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the backfill made no progress")
		}
	}

	// The lock is held: a second apply refuses, a run tick reports it.
	second, _, secondErr := cliProcess(dir, "apply", "dev", "--yes")
	err := second.Run()
	if code := second.ProcessState.ExitCode(); code != ExitError ||
		!strings.Contains(secondErr.String(), fmt.Sprintf("lock env:dev is held by pid %d", holder.Process.Pid)) {
		t.Fatalf("concurrent apply: exit %d (%v)\n%s", code, err, secondErr)
	}
	tick, tickOut, tickErr := cliProcess(dir, "run", "dev", "--json", "--lock-timeout", "0s")
	_ = tick.Run()
	var r runOut
	if json.Unmarshal(tickOut.Bytes(), &r) != nil || r.Outcome != "lock-held" || tick.ProcessState.ExitCode() != ExitError {
		t.Fatalf("concurrent run: exit %d\n%s%s", tick.ProcessState.ExitCode(), tickOut, tickErr)
	}

	if err := holder.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	<-exited // reaped: the pid is gone
	n := doneCount(t, dir, fp)
	if n >= tickHours {
		t.Fatalf("the backfill finished (%d intervals) before the kill", n)
	}
	t.Logf("killed after %d of %d intervals", n, tickHours)

	start := time.Now()
	mustRun(t, dir, "apply", "dev", "--yes")
	if elapsed := time.Since(start); elapsed > time.Minute {
		t.Errorf("the apply after the kill took %v: it waited for the lock's ttl", elapsed)
	}
	got := query(t, dir, "SELECT count(*), count(DISTINCT hour), sum(n), min(n), max(n), sum(first_id) FROM dev__core.hourly")
	// A clean run: one row per hour, 60 ticks each, first ids 0, 60, 120, …
	want := fmt.Sprintf("[[%d %d %d 60 60 %d]]", tickHours, tickHours, tickHours*60, 60*tickHours*(tickHours-1)/2)
	if got != want {
		t.Fatalf("after resuming: %s, want %s", got, want)
	}
	if got := ledgerOf(t, dir, "dev", "core.hourly"); got != fmt.Sprintf("%d done, failed []", tickHours) {
		t.Fatalf("ledger after resuming: %s", got)
	}
	// Row for row what an uninterrupted apply yields.
	clean := ticksProject(t)
	mustRun(t, clean, "apply", "dev", "--yes")
	const all = "SELECT * FROM dev__core.hourly ORDER BY ALL"
	if query(t, dir, all) != query(t, clean, all) {
		t.Fatal("the resumed table differs from a clean run's")
	}
}

// forgetNoop removes the no-op digests an apply left in dir, so that the
// next plan takes the full path.
func forgetNoop(t *testing.T, dir string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, ".efmesh", "cache", "noop")); err != nil {
		t.Fatal(err)
	}
}
