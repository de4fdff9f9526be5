package digest

import (
	"context"
	"os"
	"path/filepath"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
)

// LookupLocked answers a plain apply (ApplyRequest.Noop's request) of an
// unchanged project from the environment's no-op digest, as Apply would
// answer it: a plan without changes, reviewed, nothing built and nothing
// written. ok is false when it cannot be certain, and nothing was
// changed: the caller takes the full path (Apply).
//
// It makes the checks Apply makes for such a plan, in its order: the
// environment's lock taken in the store (a lock another process holds is
// a miss, and the full path reports it), then, under the lock, the digest
// checked as Lookup checks it (files, binary, clock, warehouse) with
// the store's token read from the locked store. expectEnv, when set, must
// be the environment's last applied plan: otherwise the full path decides.
// A digest whose apply would record audit files in the store (ApplyNoop
// false) is a miss.
//
// The lock's row moves the state file's stamps: the next plan reads the
// store's token once (a read-only open) and stamps the file again, rather
// than this apply waiting for the stamps to settle.
//
// The hit's plan is reviewed by the caller (NoopHit.Text, NoopHit.Plan).
func LookupLocked(ctx context.Context, dir string, req Request, expectEnv string) (hit Hit, ok bool) {
	if analysis.ValidateEnv(req.Env) != nil {
		return hit, false
	}
	root, err := project.FindRoot(dir)
	if err != nil {
		return hit, false
	}
	// The digest read, not checked, before the store is opened: most
	// misses (no digest, another request, the clock, an apply that writes)
	// take no lock.
	if d, _, ok := loadDigest(noopPath(root, req.Env), root, req); !ok || !d.ApplyNoop {
		return hit, false
	}
	src, err := os.ReadFile(filepath.Join(root, project.ConfigFile))
	if err != nil {
		return hit, false
	}
	proj := &project.Project{Root: root}
	proj.Config, _ = project.ParseConfig(project.ConfigFile, src)
	if !connect.StoreExists(proj) {
		return hit, false
	}
	ok = func() bool {
		st, err := connect.Store(ctx, proj)
		if err != nil {
			return false
		}
		defer st.Close()
		lk, err := planner.AcquireLock(ctx, st, planner.EnvLock(req.Env), 0)
		if err != nil {
			return false
		}
		defer lk.Release()
		if hit, ok = quickPlan(ctx, dir, req, false, st); !ok || !hit.applyNoop {
			return false
		}
		if expectEnv == "" {
			return true
		}
		// As the full path's --expect-env check reads it.
		e, err := planner.ReadEnvironment(ctx, st, req.Env)
		return err == nil && e.LastApplied != nil && e.LastApplied.ID == expectEnv
	}()
	if !ok {
		return Hit{}, false
	}
	return hit, true
}
