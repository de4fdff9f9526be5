package lsp

import (
	"context"
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
	if !connect.StoreExists(p) {
		return nil, nil
	}
	return connect.Store(ctx, p)
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
