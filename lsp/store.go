package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"sync"
	"time"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// The editor reads the state store only to show what environments point
// at (hover, code lens, plan); it opens it for writing only for an explicit
// efmesh.apply. It never creates one by reading. Paths and connections come
// from package connect, as for the CLI.

// openStore opens the project's state store if it exists; (nil, nil) when
// there is none yet.
func openStore(ctx context.Context, p *project.Project) (state.Store, error) {
	return connect.ExistingStore(ctx, p)
}

// envPointers maps environment → model → fingerprint.
type envPointers map[string]map[string]string

// storeRetry is how long background reads in the editor wait after the
// store failed before they try it again.
const storeRetry = 30 * time.Second

// absentRetry is how long the editor trusts that a Postgres store does not
// exist yet before it looks again (a SQLite file is looked for each time).
const absentRetry = 5 * time.Second

// explicitKey marks the context of a plan the user asked for: it tries the
// store whatever failed before.
type explicitKey struct{}

func explicitly(ctx context.Context) context.Context {
	return context.WithValue(ctx, explicitKey{}, true)
}

// storeReader is a view's read-only access to the project's state store:
// the store, opened on first use and kept open, behind a state.Cache that
// is invalidated whenever the store's version moves (a write by the
// editor's apply or by another process). A store that failed is not tried
// again by background reads for storeRetry, so a server that is down does
// not hold up every check; a cancelled read is no failure.
type storeReader struct {
	mu      sync.Mutex
	where   string // the store's type and location the open store is of
	st      state.Store
	cache   *state.Cache
	gen     int   // counts the opened stores: versions of two do not compare
	version int64 // of st, when versioned
	known   bool  // version is st's
	failed  time.Time
	failure error
	absent  time.Time // when the store was last found missing
}

// reader returns what the editor reads of p's store, and the version of
// what it reads: state.Empty and "none" when there is no store yet. Equal
// versions read the same.
func (r *storeReader) reader(ctx context.Context, p *project.Project) (state.Reader, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	explicit := ctx.Value(explicitKey{}) != nil
	if loc := connect.StoreLocation(p); loc != r.where { // efmesh.yaml moved the store: reopen it
		r.closeLocked()
		r.where, r.failure, r.absent = loc, nil, time.Time{}
	}
	if !connect.StoreExists(p) { // a Postgres store always "exists"
		r.closeLocked() // a file that was removed
		return state.Empty, "none", nil
	}
	if r.st == nil {
		if r.failure != nil && time.Since(r.failed) < storeRetry && !explicit {
			return nil, "", r.failure
		}
		if !r.absent.IsZero() && time.Since(r.absent) < absentRetry && !explicit {
			return state.Empty, "none", nil
		}
		st, err := openStore(ctx, p)
		if err != nil {
			return nil, "", r.fail(err)
		}
		r.failure = nil
		if st == nil {
			r.absent = time.Now()
			return state.Empty, "none", nil
		}
		r.st, r.cache, r.known, r.absent = st, state.Cached(st), false, time.Time{}
		r.gen++
	}
	vs, ok := r.st.(state.Versioned)
	if !ok { // not reached with the stores efmesh has: read afresh each time
		r.cache.Invalidate()
		return r.cache, fmt.Sprintf("%d.%d", r.gen, time.Now().UnixNano()), nil
	}
	v, err := vs.Version(ctx)
	if err != nil {
		if ctx.Err() == nil {
			r.closeLocked() // opened again on the next read
		}
		return nil, "", r.fail(err)
	}
	if !r.known || v != r.version {
		r.cache.Invalidate()
		r.version, r.known = v, true
	}
	return failing{r.cache, r}, fmt.Sprintf("%d.%d", r.gen, v), nil
}

// fail remembers err as the store's failure and returns it. A cancelled
// read (the user typed on) says nothing about the store. Callers hold mu.
func (r *storeReader) fail(err error) error {
	if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		r.failed, r.failure = time.Now(), err
	}
	return err
}

func (r *storeReader) closeLocked() {
	if r.st != nil {
		r.st.Close()
	}
	r.st, r.cache, r.known = nil, nil, false
}

// close closes the store; the next read opens it again.
func (r *storeReader) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeLocked()
}

// failing is the cache of a storeReader: a read that fails is the store's
// failure, so background reads back off.
type failing struct {
	*state.Cache
	r *storeReader
}

func (f failing) note(err error) error {
	if err != nil {
		f.r.mu.Lock()
		f.r.fail(err)
		f.r.mu.Unlock()
	}
	return err
}

func (f failing) Environment(ctx context.Context, env string) (map[string]state.Pointer, error) {
	ptrs, err := f.Cache.Environment(ctx, env)
	return ptrs, f.note(err)
}

func (f failing) SnapshotHeads(ctx context.Context, fps []string) (map[string]state.Snapshot, error) {
	snaps, err := f.Cache.SnapshotHeads(ctx, fps)
	return snaps, f.note(err)
}

func (f failing) Snapshots(ctx context.Context, fps []string) (map[string]state.Snapshot, error) {
	snaps, err := f.Cache.Snapshots(ctx, fps)
	return snaps, f.note(err)
}

func (f failing) Intervals(ctx context.Context, fp string) ([]state.Interval, error) {
	ivs, err := f.Cache.Intervals(ctx, fp)
	return ivs, f.note(err)
}

// environments returns what each environment points at; nil when there is
// no state store yet.
func (v *view) environments(ctx context.Context, p *project.Project) (envPointers, error) {
	if p == nil {
		return nil, nil
	}
	r, version, err := v.store.reader(ctx, p)
	if err != nil {
		return envPointers{}, err
	}
	if version == "none" {
		return nil, nil
	}
	names, err := r.Environments(ctx)
	if err != nil {
		return envPointers{}, err
	}
	out := envPointers{}
	for _, env := range names {
		ptrs, err := r.Environment(ctx, env)
		if err != nil {
			return out, err
		}
		m := make(map[string]string, len(ptrs))
		for name, p := range ptrs {
			m[name] = p.Fingerprint
		}
		out[env] = m
	}
	return out, nil
}

// appliedBy names the operator of an apply from the editor in the plans
// journal.
func appliedBy() string {
	if u := os.Getenv("EFMESH_USER"); u != "" {
		return u
	}
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	return strings.TrimSuffix(name+"@"+host, "@") + " (editor)"
}
