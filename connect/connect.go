// Package connect opens what a project's efmesh.yaml names: the warehouse
// engine, the state store, and the workbench the checker binds models in.
// The CLI and the language server open them through this package only, so
// both read efmesh.yaml the same way.
package connect

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
	statepg "github.com/efmesh/efmesh/state/postgres"
	"github.com/efmesh/efmesh/state/sqlite"
)

// EngineKind is the project's engine, as efmesh.yaml's engine type names
// it: engine.DefaultKind when it names none, the zero Kind for a word that
// names no engine (project.Load reported it).
func EngineKind(p *project.Project) engine.Kind {
	t := p.Config.Engine.Type
	if t == "" {
		return engine.DefaultKind
	}
	k, _ := engine.ParseKind(t)
	return k
}

// StoreLocation names where p's state store is ("sqlite <file>",
// "postgres <url>"): two projects with one location share a store.
func StoreLocation(p *project.Project) string {
	c := p.Config.State
	if c.Type == "postgres" {
		return "postgres " + c.URL
	}
	return "sqlite " + StorePath(p)
}

// StoreIsFile reports whether p's state store is a file on this machine
// (SQLite), whose stamps say when it was written.
func StoreIsFile(p *project.Project) bool {
	return p.Config.State.Type != "postgres"
}

// StorePath is the SQLite state store's file, absolute.
func StorePath(p *project.Project) string {
	path := p.Config.State.Path
	if path == "" {
		path = ".efmesh/state.db"
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.Root, filepath.FromSlash(path))
	}
	return path
}

// WarehousePath is the DuckDB warehouse file, absolute (or ":memory:").
func WarehousePath(p *project.Project) string {
	path := p.Config.Engine.Path
	if path == "" {
		path = "efmesh.duckdb"
	}
	if path == ":memory:" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(p.Root, filepath.FromSlash(path))
}

// CachePath is the file of the check cache.
func CachePath(p *project.Project) string {
	return filepath.Join(p.Root, ".efmesh", "cache", "check.gob")
}

// expand replaces the ${NAME} references of a setting of efmesh.yaml
// ("engine url", "state url") from the environment, so credentials stay
// out of the file. A variable that is unset (and has no default) is a
// *planner.ProblemsError at its position in efmesh.yaml.
func expand(p *project.Project, setting, s string) (string, error) {
	out, err := project.ExpandVars(s, os.LookupEnv)
	var ue *project.UnsetVarError
	if !errors.As(err, &ue) {
		return out, err
	}
	d := project.Diagnostic{File: project.ConfigFile, Severity: project.SeverityError, Code: project.CodeConfig,
		Message: fmt.Sprintf("%s needs the environment variable %s, which is not set (export it, or write ${%s:-default})", setting, ue.Name, ue.Name)}
	for _, r := range p.Config.Vars {
		if r.Setting == setting && r.Name == ue.Name {
			d.Range = r.Range
			break
		}
	}
	return "", &planner.ProblemsError{Diagnostics: []project.Diagnostic{d}}
}

// Store opens the state store.
func Store(ctx context.Context, p *project.Project) (state.Store, error) {
	c := p.Config.State
	switch c.Type {
	case "", "sqlite":
		st, err := sqlite.Open(ctx, StorePath(p))
		if err != nil {
			return nil, err
		}
		return st, nil
	case "postgres":
		url, err := expand(p, "state url", c.URL)
		if err != nil {
			return nil, err
		}
		st, err := statepg.Open(ctx, url)
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	return nil, fmt.Errorf("unknown state store type %q (want sqlite or postgres)", c.Type)
}

// ExistingStore opens the state store only if there is one: (nil, nil)
// when the SQLite file or the Postgres schema does not exist yet. It never
// creates a store.
func ExistingStore(ctx context.Context, p *project.Project) (state.Store, error) {
	if p.Config.State.Type == "postgres" {
		url, err := expand(p, "state url", p.Config.State.URL)
		if err != nil {
			return nil, err
		}
		st, err := statepg.OpenExisting(ctx, url)
		if errors.Is(err, state.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	if !StoreExists(p) {
		return nil, nil
	}
	return Store(ctx, p)
}

// ReadOnlyStore is ExistingStore for a quick read that must not wait on a
// writer (the no-op digest's token): a SQLite store is opened read-only,
// without the lock Store's schema check takes. (nil, nil): no store yet.
func ReadOnlyStore(ctx context.Context, p *project.Project) (state.Store, error) {
	if p.Config.State.Type == "postgres" {
		return ExistingStore(ctx, p)
	}
	if !StoreExists(p) {
		return nil, nil
	}
	st, err := sqlite.OpenReadOnly(ctx, StorePath(p))
	if err != nil {
		return nil, err
	}
	return st, nil
}

// StoreExists reports whether a state store can be opened without creating
// one: a SQLite file that exists, or any Postgres store.
func StoreExists(p *project.Project) bool {
	if p.Config.State.Type == "postgres" {
		return true
	}
	_, err := os.Stat(StorePath(p))
	return err == nil
}

// Migrate upgrades the state store; backup names the copy made first
// (SQLite only).
func Migrate(ctx context.Context, p *project.Project) (from, to int, backup string, err error) {
	if p.Config.State.Type == "postgres" {
		url, err := expand(p, "state url", p.Config.State.URL)
		if err != nil {
			return 0, 0, "", err
		}
		from, to, err = statepg.Migrate(ctx, url)
		return from, to, "", err
	}
	return sqlite.Migrate(ctx, StorePath(p))
}

// DefaultLockTimeout is how long Warehouse waits for a DuckDB file that
// another process is writing, unless efmesh.yaml (engine lock_timeout) or
// the caller says otherwise.
const DefaultLockTimeout = 10 * time.Second

// LockTimeoutOf is how long p waits for a DuckDB file another process
// writes, and for an environment's lock another process holds: engine
// lock_timeout in efmesh.yaml, else DefaultLockTimeout.
func LockTimeoutOf(p *project.Project) time.Duration {
	if t := p.Config.Engine.LockTimeout; t != nil {
		return *t
	}
	return DefaultLockTimeout
}

// WarehouseOption tunes Warehouse.
type WarehouseOption func(*warehouseConfig)

type warehouseConfig struct {
	timeout    time.Duration // < 0: the project's setting
	onBusy     func(busy *engine.BusyError, timeout time.Duration)
	pollPeriod time.Duration
}

// LockTimeout sets how long Warehouse waits for a DuckDB file another
// process holds, overriding efmesh.yaml; 0 fails at once.
func LockTimeout(d time.Duration) WarehouseOption {
	return func(c *warehouseConfig) { c.timeout = max(d, 0) }
}

// OnBusy is called once when Warehouse starts waiting for the file.
func OnBusy(f func(busy *engine.BusyError, timeout time.Duration)) WarehouseOption {
	return func(c *warehouseConfig) { c.onBusy = f }
}

// BusyTimeoutError is a DuckDB file that stayed held by another process
// for as long as Warehouse was allowed to wait.
type BusyTimeoutError struct {
	Busy   *engine.BusyError
	Waited time.Duration
}

func (e *BusyTimeoutError) Error() string {
	if e.Waited <= 0 {
		return e.Busy.Error() + "; try again when it is done (or wait for it with engine lock_timeout in efmesh.yaml)"
	}
	return fmt.Sprintf("%v; gave up after %s (wait longer with engine lock_timeout in efmesh.yaml)", e.Busy, e.Waited)
}

func (e *BusyTimeoutError) Unwrap() error { return e.Busy }

// BackupStore copies a SQLite state store to <file>.bak-<tag>-<UTC
// timestamp> (-2, -3… after it when taken) and returns that name; a Postgres store is the operator's to
// copy (pg_dump --schema efmesh_state): "" and no error.
func BackupStore(ctx context.Context, p *project.Project, st state.Store, tag string) (string, error) {
	s, ok := st.(*sqlite.Store)
	if !ok {
		return "", nil
	}
	base := fmt.Sprintf("%s.bak-%s-%s", StorePath(p), tag, time.Now().UTC().Format("20060102T150405Z"))
	path := base
	for i := 2; ; i++ { // never over an earlier backup of the same second
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			break
		}
		path = fmt.Sprintf("%s-%d", base, i)
	}
	return path, s.Backup(ctx, path)
}

// Warehouse opens the warehouse, creating a DuckDB file when missing.
// DuckDB admits one writing process per file: while another process holds
// it, Warehouse polls for up to the lock timeout (engine lock_timeout in
// efmesh.yaml, DefaultLockTimeout, or LockTimeout), then fails with a
// *BusyTimeoutError naming the holder.
func Warehouse(ctx context.Context, p *project.Project, opts ...WarehouseOption) (engine.Engine, error) {
	switch EngineKind(p) {
	case engine.DuckDB:
		db, err := openDuckDB(ctx, p, duckdb.Open, opts)
		if err != nil {
			return nil, err
		}
		if err := TuneDuckDB(ctx, db, p.Config.Engine, WarehousePath(p)); err != nil {
			db.Close()
			return nil, err
		}
		return db, nil
	case engine.Postgres:
		url, err := expand(p, "engine url", p.Config.Engine.URL)
		if err != nil {
			return nil, err
		}
		db, err := postgres.Open(ctx, url)
		if err != nil {
			return nil, err
		}
		return db, nil
	}
	return nil, fmt.Errorf("unknown engine type %q (want duckdb or postgres)", p.Config.Engine.Type)
}

// openDuckDB opens the warehouse file with open, polling while another
// process holds it, for as long as opts and the project allow.
func openDuckDB(ctx context.Context, p *project.Project, open func(string) (*duckdb.DB, error), opts []WarehouseOption) (*duckdb.DB, error) {
	c := warehouseConfig{timeout: -1, pollPeriod: 100 * time.Millisecond}
	for _, o := range opts {
		o(&c)
	}
	if c.timeout < 0 {
		c.timeout = LockTimeoutOf(p)
	}
	path := WarehousePath(p)
	start := time.Now()
	for first := true; ; first = false {
		db, err := open(path)
		var busy *engine.BusyError
		if !errors.As(err, &busy) {
			return db, err
		}
		if rel, rerr := filepath.Rel(p.Root, path); rerr == nil && !strings.HasPrefix(rel, "..") {
			busy.Database = filepath.ToSlash(rel)
		}
		waited := time.Since(start)
		if waited >= c.timeout {
			return nil, &BusyTimeoutError{Busy: busy, Waited: c.timeout}
		}
		if first && c.onBusy != nil {
			c.onBusy(busy, c.timeout)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (while waiting: %v)", context.Cause(ctx), busy)
		case <-time.After(min(c.pollPeriod, c.timeout-waited)):
		}
	}
}

// ExistingWarehouse opens the warehouse for reading: a DuckDB file that
// does not exist yet is an error instead of a new empty database.
func ExistingWarehouse(ctx context.Context, p *project.Project, opts ...WarehouseOption) (engine.Engine, error) {
	if EngineKind(p) == engine.DuckDB {
		path := WarehousePath(p)
		if path != ":memory:" {
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("no warehouse at %s: apply an environment first", path)
			}
		}
	}
	return Warehouse(ctx, p, opts...)
}

// WarehouseIfExists opens the warehouse when there is one: (nil, nil) for
// a DuckDB file that does not exist, which is never created here. A plan
// reads a nil warehouse as one that holds nothing.
func WarehouseIfExists(ctx context.Context, p *project.Project, opts ...WarehouseOption) (engine.Engine, error) {
	if EngineKind(p) == engine.DuckDB {
		if path := WarehousePath(p); path != ":memory:" {
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
		}
	}
	return Warehouse(ctx, p, opts...)
}

// WarehouseReadOnly reports, for a DuckDB warehouse file that exists,
// whether this process cannot write it (the file or its folder read-only):
// plan and status read it, apply cannot change it. "" otherwise, else the
// file's path.
func WarehouseReadOnly(p *project.Project) string {
	if EngineKind(p) != engine.DuckDB {
		return ""
	}
	path := WarehousePath(p)
	if path == ":memory:" {
		return ""
	}
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	if writable(path) {
		return ""
	}
	return path
}

// ReadWarehouse opens the warehouse for reading its catalog (plan, status):
// a DuckDB file read-only, so nothing is written or created, or (nil, nil)
// when the file does not exist. A file another process is writing is
// waited for as Warehouse waits (opts, engine lock_timeout).
func ReadWarehouse(ctx context.Context, p *project.Project, opts ...WarehouseOption) (engine.Engine, error) {
	if EngineKind(p) != engine.DuckDB {
		return Warehouse(ctx, p, opts...)
	}
	path := WarehousePath(p)
	if path == ":memory:" {
		return Warehouse(ctx, p, opts...)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	db, err := openDuckDB(ctx, p, duckdb.OpenReadOnly, opts)
	if err != nil {
		return nil, err
	}
	// Capped as when writing: opening a file of thousands of tables
	// reads every table's metadata into the buffer pool.
	if err := TuneDuckDB(ctx, db, p.Config.Engine, path); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Workbench opens the scratch engine models are checked in: an in-memory
// DuckDB for DuckDB projects. It never is the warehouse.
func Workbench(p *project.Project) (analysis.Workbench, error) {
	switch EngineKind(p) {
	case engine.DuckDB:
		db, err := duckdb.Open("")
		if err != nil {
			return nil, err
		}
		limit := WorkbenchMemoryLimit
		if l := p.Config.Engine.MemoryLimit; l != "" {
			limit = l
		}
		if err := setMemoryLimit(context.Background(), db, limit); err != nil {
			db.Close()
			return nil, err
		}
		return db, nil
	case engine.Postgres:
		return pgWorkbench{}, nil
	}
	return nil, fmt.Errorf("checking %s projects is not supported by this build yet", p.Config.Engine.Type)
}

// ServerWorkbench is Workbench for a use case that reaches the warehouse
// anyway (plan, apply, run; the editor when asked to): a Postgres project's
// bodies are bound by the server itself, in a session of its own whose
// temporary stand-in tables no other session sees (postgres.Checker). A
// server that does not answer is an error. Other engines get Workbench.
func ServerWorkbench(ctx context.Context, p *project.Project) (analysis.Workbench, error) {
	if EngineKind(p) != engine.Postgres {
		return Workbench(p)
	}
	url, err := expand(p, "engine url", p.Config.Engine.URL)
	if err != nil {
		return nil, err
	}
	return postgres.OpenChecker(ctx, url)
}

var (
	_ analysis.Workbench    = (*postgres.Checker)(nil)
	_ analysis.ServerBinder = (*postgres.Checker)(nil)
)

// pgWorkbench checks Postgres models without a server: pg_query parses,
// the binder resolves columns against declared schemas.
type pgWorkbench struct{ postgres.Parser }

func (pgWorkbench) Dialect() engine.Dialect { return postgres.Dialect{} }
func (pgWorkbench) Close() error            { return nil }

// Version names the parser library that checks (analysis keys its check
// cache by it): a pg_query upgrade changes what the binder sees.
func (pgWorkbench) Version(context.Context) (string, error) {
	const mod = "github.com/pganalyze/pg_query_go/v6"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == mod {
				return "pg_query " + d.Version, nil
			}
		}
	}
	return "pg_query v6", nil
}

var (
	_ analysis.Workbench = pgWorkbench{}
	_ analysis.Binder    = pgWorkbench{}
)

// DefaultMemoryLimit caps the buffer pool of a DuckDB warehouse file when
// efmesh.yaml names no engine memory_limit: past it DuckDB evicts blocks
// already in the file and spills what a query holds (joins, sorts,
// aggregates) to its temp directory (TempDirectory) instead of growing the
// process. It is no lower because some of DuckDB's buffers cannot spill:
// every CSV scan pins 32 MB per thread, so a model reading a few CSV files
// ran a 128 MB cap out of memory. What the cap does not bound, the cache
// of blocks an apply wrote, apply empties at its checkpoints
// (duckdb.DB.Checkpoint). An in-memory warehouse cannot evict, so it keeps
// DuckDB's own default (80% of RAM).
const DefaultMemoryLimit = "1GB"

// WorkbenchMemoryLimit caps the in-memory workbench (models are checked
// in it against empty stand-ins; compaction and parquet targets move data
// through it); engine memory_limit in efmesh.yaml replaces it.
const WorkbenchMemoryLimit = DefaultMemoryLimit

// TempDirectory is where DuckDB spills what does not fit under the cap for
// the warehouse file path: <file>.tmp beside it, on the disk the warehouse
// already fills, removed by DuckDB when the database closes.
func TempDirectory(path string) string { return path + ".tmp" }

// TuneDuckDB applies the engine settings of efmesh.yaml to the DuckDB
// warehouse db opened at path: its threads, its memory cap and, for a
// file, the directory it spills to. Every opening of a warehouse goes through it (and so does the
// benchmark's floor, to be measured under the same cap).
func TuneDuckDB(ctx context.Context, db *duckdb.DB, c project.EngineConfig, path string) error {
	if c.Threads > 0 {
		if err := db.Exec(ctx, fmt.Sprintf("SET threads = %d", c.Threads)); err != nil {
			return fmt.Errorf("engine threads %d: %w", c.Threads, err)
		}
	}
	limit := c.MemoryLimit
	if path == ":memory:" {
		if limit == "" {
			return nil
		}
		return setMemoryLimit(ctx, db, limit)
	}
	if err := db.Exec(ctx, "SET temp_directory = "+engine.QuoteString(TempDirectory(path))); err != nil {
		return fmt.Errorf("duckdb temp_directory: %w", err)
	}
	if limit == "" {
		limit = DefaultMemoryLimit
	}
	return setMemoryLimit(ctx, db, limit)
}

// setMemoryLimit caps db's buffer pool at limit (a DuckDB size).
func setMemoryLimit(ctx context.Context, db *duckdb.DB, limit string) error {
	if err := db.SetMemoryLimit(ctx, limit); err != nil {
		return fmt.Errorf("engine memory_limit %q: %w", limit, err)
	}
	return nil
}
