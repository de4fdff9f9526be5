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
	"strings"
	"time"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
	statepg "github.com/efmesh/efmesh/state/postgres"
	"github.com/efmesh/efmesh/state/sqlite"
)

// EngineType is the project's engine: "duckdb" or "postgres".
func EngineType(p *project.Project) string {
	if t := p.Config.Engine.Type; t != "" {
		return t
	}
	return "duckdb"
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

// expand replaces ${VAR} in a URL from the environment, so credentials
// stay out of efmesh.yaml.
func expand(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return os.Expand(s, os.Getenv)
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
		st, err := statepg.Open(ctx, expand(c.URL))
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
		st, err := statepg.OpenExisting(ctx, expand(p.Config.State.URL))
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
		from, to, err = statepg.Migrate(ctx, expand(p.Config.State.URL))
		return from, to, "", err
	}
	return sqlite.Migrate(ctx, StorePath(p))
}

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
func Warehouse(ctx context.Context, p *project.Project) (engine.Engine, error) {
	switch EngineType(p) {
	case "duckdb":
		db, err := duckdb.Open(WarehousePath(p))
		if err != nil {
			return nil, err
		}
		if err := tune(ctx, db, p.Config.Engine); err != nil {
			db.Close()
			return nil, err
		}
		return db, nil
	case "postgres":
		db, err := postgres.Open(ctx, expand(p.Config.Engine.URL))
		if err != nil {
			return nil, err
		}
		return db, nil
	}
	return nil, fmt.Errorf("unknown engine type %q (want duckdb or postgres)", p.Config.Engine.Type)
}

// ExistingWarehouse opens the warehouse for reading: a DuckDB file that
// does not exist yet is an error instead of a new empty database.
func ExistingWarehouse(ctx context.Context, p *project.Project) (engine.Engine, error) {
	if EngineType(p) == "duckdb" {
		path := WarehousePath(p)
		if path != ":memory:" {
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("no warehouse at %s: apply an environment first", path)
			}
		}
	}
	return Warehouse(ctx, p)
}

// WarehouseIfExists opens the warehouse when there is one: (nil, nil) for
// a DuckDB file that does not exist, which is never created here. A plan
// reads a nil warehouse as one that holds nothing.
func WarehouseIfExists(ctx context.Context, p *project.Project) (engine.Engine, error) {
	if EngineType(p) == "duckdb" {
		if path := WarehousePath(p); path != ":memory:" {
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
		}
	}
	return Warehouse(ctx, p)
}

// ReadWarehouse opens the warehouse for reading its catalog (plan, status):
// a DuckDB file read-only, so nothing is written or created, or (nil, nil)
// when the file does not exist.
func ReadWarehouse(ctx context.Context, p *project.Project) (engine.Engine, error) {
	if EngineType(p) != "duckdb" {
		return Warehouse(ctx, p)
	}
	path := WarehousePath(p)
	if path == ":memory:" {
		return Warehouse(ctx, p)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	db, err := duckdb.OpenReadOnly(path)
	if err != nil {
		return nil, err
	}
	return db, nil
}

// Workbench opens the scratch engine models are checked in: an in-memory
// DuckDB for DuckDB projects. It never is the warehouse.
func Workbench(p *project.Project) (planner.Workbench, error) {
	switch EngineType(p) {
	case "duckdb":
		db, err := duckdb.Open("")
		if err != nil {
			return nil, err
		}
		return db, nil
	case "postgres":
		return pgWorkbench{}, nil
	}
	return nil, fmt.Errorf("checking %s projects is not supported by this build yet", EngineType(p))
}

// pgWorkbench checks Postgres models without a server: pg_query parses,
// the binder resolves columns against declared schemas.
type pgWorkbench struct{ postgres.Parser }

func (pgWorkbench) Dialect() engine.Dialect { return postgres.Dialect{} }
func (pgWorkbench) Close() error            { return nil }

var (
	_ planner.Workbench = pgWorkbench{}
	_ planner.Binder    = pgWorkbench{}
)

// tune applies the engine settings of efmesh.yaml to a DuckDB warehouse.
func tune(ctx context.Context, db *duckdb.DB, c project.EngineConfig) error {
	if c.MemoryLimit != "" {
		if err := db.Exec(ctx, "SET memory_limit = "+engine.QuoteString(c.MemoryLimit)); err != nil {
			return fmt.Errorf("engine memory_limit %q: %w", c.MemoryLimit, err)
		}
	}
	if c.Threads > 0 {
		if err := db.Exec(ctx, fmt.Sprintf("SET threads = %d", c.Threads)); err != nil {
			return fmt.Errorf("engine threads %d: %w", c.Threads, err)
		}
	}
	return nil
}
