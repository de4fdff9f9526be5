package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// chainProject is 32 FULL models in one chain, chain.c_00 <- c_01 <- …
// <- c_31; c_01 takes a while (a sum over 100M rows), the others are
// instant. Every model holds one row: v = 1 in c_00 and c_01, v = k in c_k.
func chainProject(t *testing.T) string {
	files := map[string]string{
		"efmesh.yaml":     "name: chain\nmodels: [\"models/**/*.sql\"]\nstart: 2026-01-01\n",
		"models/c_00.sql": "MODEL (name chain.c_00, kind FULL);\nSELECT CAST(1 AS BIGINT) AS v\n",
		"models/c_01.sql": "MODEL (name chain.c_01, kind FULL);\n" +
			"SELECT CAST(v + (SELECT sum(i) FROM range(0, 100000000) AS t(i)) - 4999999950000000 AS BIGINT) AS v\nFROM @ref(chain.c_00)\n",
	}
	for i := 2; i < 32; i++ {
		files[fmt.Sprintf("models/c_%02d.sql", i)] = fmt.Sprintf("MODEL (name chain.c_%02d, kind FULL);\nSELECT v + 1 AS v FROM @ref(chain.c_%02d)\n", i, i-1)
	}
	return writeProject(t, files)
}

// TestKillMidRecordBatch kills -9 an apply right after its first model is
// built, while that model's store records (built mark, refresh) wait in
// the apply's batch: the table exists, the store does not claim it. The
// store never claims more than the warehouse holds, and the next apply
// builds what the store does not know as built and finishes: every model
// built, promoted, with one refresh record each.
func TestKillMidRecordBatch(t *testing.T) {
	dir := chainProject(t)
	fps := map[string]string{}
	for _, m := range planJSONOf(t, dir, "dev").Models {
		fps[m.Name] = m.Fingerprint
	}
	if len(fps) != 32 {
		t.Fatalf("the plan has %d models, want 32", len(fps))
	}

	cmd := exec.Command(os.Args[0], "-C", dir, "apply", "dev", "--yes", "--log-level", "info")
	cmd.Env = append(os.Environ(), "EFMESH_TEST_AS_CLI=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sc := bufio.NewScanner(stderr)
	killed := false
	for sc.Scan() {
		line := sc.Text()
		log.WriteString(line + "\n")
		if strings.Contains(line, "msg=built") && strings.Contains(line, "model=chain.c_00") {
			if err := cmd.Process.Kill(); err != nil { // SIGKILL
				t.Fatal(err)
			}
			killed = true
			break
		}
	}
	_ = cmd.Wait()
	if !killed {
		t.Fatalf("the apply ended before c_00 was built:\n%s", log.String())
	}

	// The store claims no more than the warehouse holds: c_00's table is
	// there, its snapshot is recorded but not built (its records were in
	// the batch the kill lost), and nothing is promoted.
	st := openState(t, dir)
	snaps, err := st.Snapshots(context.Background(), []string{fps["chain.c_00"], fps["chain.c_01"]})
	if err != nil {
		t.Fatal(err)
	}
	c00, ok := snaps[fps["chain.c_00"]]
	if !ok || c00.Built() {
		t.Fatalf("after the kill, c_00's snapshot: stored %v, built %v; want stored, unbuilt", ok, c00.Built())
	}
	if got := ledgerOfFP(t, st, c00.Fingerprint); got != "0 done, failed []" {
		t.Errorf("after the kill, c_00's ledger: %s; want empty", got)
	}
	if c01, ok := snaps[fps["chain.c_01"]]; ok && c01.Built() {
		t.Errorf("after the kill, c_01 is recorded built")
	}
	tables := query(t, dir, "SELECT table_name FROM information_schema.tables WHERE table_schema = '_efmesh' ORDER BY ALL")
	_, name, _ := strings.Cut(c00.PhysicalTable, ".")
	if !strings.Contains(tables, name) {
		t.Fatalf("after the kill, c_00's table %s is missing: %s", name, tables)
	}
	if ptrs, err := st.Environment(context.Background(), "dev"); err != nil || len(ptrs) != 0 {
		t.Fatalf("after the kill, dev points at %d models (%v); want none", len(ptrs), err)
	}

	// The next apply builds c_00 again (its table is replaced whole) and
	// everything else, then promotes.
	p := planJSONOf(t, dir, "dev")
	for _, m := range p.Models {
		if !m.Build {
			t.Errorf("after the kill, the plan does not build %s", m.Name)
		}
	}
	start := time.Now()
	mustRun(t, dir, "apply", "dev", "--yes")
	if elapsed := time.Since(start); elapsed > time.Minute {
		t.Errorf("the apply after the kill took %v: it waited for the lock's ttl", elapsed)
	}
	if got := query(t, dir, "SELECT v FROM dev__chain.c_31"); got != "[[31]]" {
		t.Errorf("dev__chain.c_31 = %s, want [[31]]", got)
	}
	for name := range fps {
		if got := ledgerOf(t, dir, "dev", name); got != "1 done, failed []" {
			t.Errorf("ledger of %s: %s; want one refresh", name, got)
		}
	}
	built, err := st.Snapshots(context.Background(), mapValues(fps))
	if err != nil {
		t.Fatal(err)
	}
	for name, fp := range fps {
		if !built[fp].Built() {
			t.Errorf("%s is not recorded built after the apply", name)
		}
	}
	if p := planJSONOf(t, dir, "dev"); p.HasChanges {
		t.Errorf("the plan after the resumed apply has changes: %+v", p.Models)
	}
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
