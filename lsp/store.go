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

// storeStamp identifies a version of the store, so cached reads are redone
// after any write: the SQLite file's (and its WAL's) size and time; a
// Postgres store is read again every few seconds. "" when there is no
// store yet.
func storeStamp(p *project.Project) string {
	if p == nil || !connect.StoreExists(p) {
		return ""
	}
	if p.Config.State.Type == "postgres" {
		return fmt.Sprintf("postgres/%d", time.Now().Unix()/5)
	}
	path := connect.StorePath(p)
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	stamp := fmt.Sprintf("%d.%d", fi.ModTime().UnixNano(), fi.Size())
	if wal, err := os.Stat(path + "-wal"); err == nil {
		stamp += fmt.Sprintf("/%d.%d", wal.ModTime().UnixNano(), wal.Size())
	}
	return stamp
}

// openStore opens the project's state store if it exists; (nil, nil) when
// there is none yet.
func openStore(ctx context.Context, p *project.Project) (state.Store, error) {
	return connect.ExistingStore(ctx, p)
}

// envPointers maps environment → model → fingerprint.
type envPointers map[string]map[string]string

// storeCache remembers the environments of a view's store until the file
// changes.
type storeCache struct {
	mu    sync.Mutex
	stamp string
	envs  envPointers
	err   error
	at    time.Time
}

// environments returns what each environment points at, read at most once
// per change of the store file.
func (v *view) environments(ctx context.Context, p *project.Project) (envPointers, error) {
	stamp := storeStamp(p)
	c := &v.stores
	c.mu.Lock()
	defer c.mu.Unlock()
	if stamp == "" {
		return nil, nil
	}
	if c.stamp == stamp && c.envs != nil {
		return c.envs, c.err
	}
	envs, err := readEnvironments(ctx, p)
	c.stamp, c.envs, c.err, c.at = stamp, envs, err, time.Now()
	return envs, err
}

func readEnvironments(ctx context.Context, p *project.Project) (envPointers, error) {
	st, err := openStore(ctx, p)
	if err != nil || st == nil {
		return envPointers{}, err
	}
	defer st.Close()
	names, err := st.Environments(ctx)
	if err != nil {
		return envPointers{}, err
	}
	out := envPointers{}
	for _, env := range names {
		ptrs, err := st.Environment(ctx, env)
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

// readCache keeps what plans read from the state store for as long as the
// store does not change (its stamp): environments, snapshot heads, full
// snapshots (nil when absent from the store) and interval ledgers. A plan
// after an edit then reads only the snapshots of fingerprints no plan
// asked for yet, usually none: an edited model's new fingerprint is
// remembered as absent.
type readCache struct {
	mu sync.Mutex
	// failed and failure: the last time the store could not be opened or
	// read, and why. Plans do not try again for storeRetry, so a server
	// that is down or unreachable does not hold up every check.
	failed    time.Time
	failure   error
	stamp     string
	envs      map[string]map[string]state.Pointer
	heads     map[string]*state.Snapshot
	full      map[string]*state.Snapshot
	intervals map[string][]state.Interval
}

// through returns the store a plan reads: c's answers, the real store
// (opened on the first miss) for the rest.
func (c *readCache) through(p *project.Project) *readThrough {
	stamp := storeStamp(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stamp != stamp || c.envs == nil {
		c.stamp = stamp
		c.envs = map[string]map[string]state.Pointer{}
		c.heads = map[string]*state.Snapshot{}
		c.full = map[string]*state.Snapshot{}
		c.intervals = map[string][]state.Interval{}
	}
	return &readThrough{c: c, p: p}
}

// readThrough answers the reads a plan makes (Environment, Snapshots,
// SnapshotHeads, Intervals); the embedded nil Store makes any other call
// fail loudly (a recovered panic): the editor plans, it never writes here.
type readThrough struct {
	state.Store
	c  *readCache
	p  *project.Project
	st state.Store
}

// storeRetry is how long plans in the editor wait after the store failed
// before they try it again.
const storeRetry = 30 * time.Second

// fail remembers err as the store's failure and returns it. A cancelled
// read (the user typed on) says nothing about the store.
func (r *readThrough) fail(err error) error {
	if !errors.Is(err, context.Canceled) {
		r.c.failed, r.c.failure = time.Now(), err
	}
	return err
}

// explicitKey marks the context of a plan the user asked for: it tries the
// store whatever failed before.
type explicitKey struct{}

func explicitly(ctx context.Context) context.Context {
	return context.WithValue(ctx, explicitKey{}, true)
}

func (r *readThrough) store(ctx context.Context) (state.Store, error) {
	if r.st == nil {
		if r.c.failure != nil && time.Since(r.c.failed) < storeRetry && ctx.Value(explicitKey{}) == nil {
			return nil, r.c.failure
		}
		st, err := openStore(ctx, r.p)
		if err != nil {
			return nil, r.fail(err)
		}
		r.c.failure = nil
		if st == nil {
			st = emptyStore{}
		}
		r.st = st
	}
	return r.st, nil
}

func (r *readThrough) Environment(ctx context.Context, env string) (map[string]state.Pointer, error) {
	return cached(ctx, r, r.c.envs, env, func(st state.Store) (map[string]state.Pointer, error) { return st.Environment(ctx, env) })
}

// cached answers key from m, or reads it from the store and remembers it.
func cached[V any](ctx context.Context, r *readThrough, m map[string]V, key string, read func(state.Store) (V, error)) (V, error) {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	if v, ok := m[key]; ok {
		return v, nil
	}
	var zero V
	st, err := r.store(ctx)
	if err != nil {
		return zero, err
	}
	v, err := read(st)
	if err != nil {
		return zero, r.fail(err)
	}
	m[key] = v
	return v, nil
}

func (r *readThrough) SnapshotHeads(ctx context.Context, fps []string) (map[string]state.Snapshot, error) {
	return r.snapshots(ctx, fps, r.c.heads, state.Store.SnapshotHeads)
}

func (r *readThrough) Snapshots(ctx context.Context, fps []string) (map[string]state.Snapshot, error) {
	return r.snapshots(ctx, fps, r.c.full, state.Store.Snapshots)
}

func (r *readThrough) snapshots(ctx context.Context, fps []string, memo map[string]*state.Snapshot,
	read func(state.Store, context.Context, []string) (map[string]state.Snapshot, error)) (map[string]state.Snapshot, error) {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	out := make(map[string]state.Snapshot, len(fps))
	var missing []string
	for _, fp := range fps {
		s, ok := memo[fp]
		switch {
		case !ok:
			missing = append(missing, fp)
		case s != nil:
			out[fp] = *s
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	st, err := r.store(ctx)
	if err != nil {
		return nil, err
	}
	got, err := read(st, ctx, missing)
	if err != nil {
		return nil, r.fail(err)
	}
	for _, fp := range missing {
		if s, ok := got[fp]; ok {
			memo[fp] = &s
			out[fp] = s
		} else {
			memo[fp] = nil
		}
	}
	return out, nil
}

func (r *readThrough) Intervals(ctx context.Context, fp string) ([]state.Interval, error) {
	return cached(ctx, r, r.c.intervals, fp, func(st state.Store) ([]state.Interval, error) { return st.Intervals(ctx, fp) })
}

func (r *readThrough) Close() error {
	if r.st != nil {
		return r.st.Close()
	}
	return nil
}

// emptyStore is a state store with nothing in it: a plan against it is
// what a project without a store gets (every model added). It answers the
// reads a plan makes; the embedded nil Store makes any other call fail
// loudly (a recovered panic), which is right for a store the editor must
// never write.
type emptyStore struct{ state.Store }

func (emptyStore) Snapshots(context.Context, []string) (map[string]state.Snapshot, error) {
	return map[string]state.Snapshot{}, nil
}
func (emptyStore) SnapshotHeads(context.Context, []string) (map[string]state.Snapshot, error) {
	return map[string]state.Snapshot{}, nil
}
func (emptyStore) Environment(context.Context, string) (map[string]state.Pointer, error) {
	return map[string]state.Pointer{}, nil
}
func (emptyStore) Environments(context.Context) ([]string, error) { return nil, nil }
func (emptyStore) Intervals(context.Context, string) ([]state.Interval, error) {
	return nil, nil
}
func (emptyStore) Close() error { return nil }

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
