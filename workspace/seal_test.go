package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/workspace/digest"
)

// flipEachByte flips one bit of each byte of the file at path in turn, asks
// check whether the damaged file answers rightly (a miss, or the answer
// of the intact file), and puts the intact file back after each.
func flipEachByte(t *testing.T, path string, check func(pos int) bool) {
	t.Helper()
	intact, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer os.WriteFile(path, intact, 0o644)
	for pos := range intact {
		damaged := append([]byte(nil), intact...)
		damaged[pos] ^= 0x04
		if err := os.WriteFile(path, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		if !check(pos) {
			t.Fatalf("%s with byte %d of %d flipped answered wrongly", path, pos, len(intact))
		}
	}
}

// TestDigestsFlippedBits: one flipped bit anywhere in the no-op digest,
// its plan or the fingerprints digest is a miss, never a wrong answer (an
// unknown field decoded as an empty list of files or models would vouch
// for nothing and answer "no changes").
func TestDigestsFlippedBits(t *testing.T) {
	ctx := context.Background()
	dir := promoted(t)
	req := NoopRequest{Env: "dev", Now: noopNow}
	hit, ok := digest.Lookup(ctx, dir, req)
	if !ok {
		t.Fatal("the intact no-op digest missed")
	}
	wantPlan, err := hit.Plan()
	if err != nil {
		t.Fatal(err)
	}
	want := planText(wantPlan)
	flipEachByte(t, filepath.Join(dir, ".efmesh", "cache", "noop", "dev.digest"), func(int) bool {
		got, ok := digest.Lookup(ctx, dir, req)
		if !ok {
			return true
		}
		p, err := got.Plan()
		return got.Text == hit.Text && err == nil && planText(p) == want
	})
	flipEachByte(t, filepath.Join(dir, ".efmesh", "cache", "noop", "dev.plan.json"), func(int) bool {
		got, ok := digest.Lookup(ctx, dir, req)
		if !ok {
			return true
		}
		p, err := got.Plan()
		return err != nil || planText(p) == want // a damaged plan is an error, not another plan
	})

	prod := NoopRequest{Env: "prod", Now: noopNow}
	promo, _, ok := digest.LookupPromotion(ctx, dir, prod)
	if !ok {
		t.Fatal("the intact fingerprints digest missed")
	}
	wantPromo := planText(promo)
	flipEachByte(t, fingerprintsFile(dir), func(int) bool {
		p, _, ok := digest.LookupPromotion(ctx, dir, prod)
		return !ok || planText(p) == wantPromo
	})
	// After all that, the intact digests answer as before.
	if p, _, ok := digest.LookupPromotion(ctx, dir, prod); !ok || planText(p) != wantPromo {
		t.Fatal("the intact fingerprints digest no longer answers")
	}
}

// TestNoopExternalStampedBeforeRead: an EXTERNAL model's data file replaced
// after the workspace read it (during a plan or a slow apply) is not
// vouched for by the digest that plan leaves: its stamp is the one taken
// before the read, so the next plan misses and sees the new file.
func TestNoopExternalStampedBeforeRead(t *testing.T) {
	ctx := context.Background()
	dir := promoted(t)
	w, err := Open(ctx, dir, OpenOptions{Options: Options{Now: func() time.Time { return noopNow }}, Env: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.OpenStore(ctx); err != nil {
		t.Fatal(err)
	}
	// The file is replaced after Open read the project, before the plan
	// that remembers the digest ends.
	writeFile(t, dir, "data/rates.csv", "country,rate,extra\nFR,20,1\n")
	p, err := w.Plan(ctx, "dev", planner.PlanAt(noopNow))
	if err != nil {
		t.Fatal(err)
	}
	req := NoopRequest{Env: "dev", Now: noopNow}
	if err := w.RememberNoop(req, p); err != nil {
		t.Fatal(err)
	}
	if _, ok := digest.Lookup(ctx, dir, req); ok {
		t.Fatal("the digest vouched for a data file replaced after it was read")
	}
}

// TestNoopRacyFile: a model file whose mtime was within the clock's tick of
// its read is stamped racy, and a same-size edit that keeps its mtime (a
// coarse-timestamp file system) misses the digest: it is compared by its
// content hash.
func TestNoopRacyFile(t *testing.T) {
	ctx := context.Background()
	dir := writeProject(t, noopShop)
	applyEnv(t, dir, "dev", noopNow)
	path := filepath.Join(dir, "models", "orders.sql")
	coarse := time.Now().Truncate(time.Second) // a whole second: a coarse clock
	if err := os.Chtimes(path, coarse, coarse); err != nil {
		t.Fatal(err)
	}
	if _, quick := planPlain(t, dir, "dev", nil, noopNow); quick {
		t.Fatal("the first plan was quick")
	}
	if _, quick := planPlain(t, dir, "dev", nil, noopNow); !quick {
		t.Fatal("the unchanged project missed the digest")
	}
	// The same size, the same mtime, other content.
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(body), "SELECT 1 AS order_id", "SELECT 2 AS order_id", 1)
	if edited == string(body) {
		t.Fatal("the edit changed nothing")
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, coarse, coarse); err != nil {
		t.Fatal(err)
	}
	if _, ok := digest.Lookup(ctx, dir, NoopRequest{Env: "dev", Now: noopNow}); ok {
		t.Fatal("a same-size edit within the mtime's tick was answered from the digest")
	}
	if p, _ := planPlain(t, dir, "dev", nil, noopNow); !p.HasChanges {
		t.Fatal("the full plan does not see the edit")
	}
}
