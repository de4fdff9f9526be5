package connect

import (
	"context"
	"fmt"
	"io"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/duckdb"
	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/project"
)

// FunctionCatalog opens what lists the functions of the project's engine:
// an in-memory DuckDB (the functions are those of the DuckDB efmesh is
// built with, never the warehouse file, which another process may hold),
// or the configured PostgreSQL server. A Postgres project without an
// engine url has no catalog: the error says so. Close the closer after use.
func FunctionCatalog(ctx context.Context, p *project.Project) (engine.FunctionCatalog, io.Closer, error) {
	switch EngineKind(p) {
	case engine.DuckDB:
		db, err := duckdb.Open("")
		if err != nil {
			return nil, nil, err
		}
		return db, db, nil
	case engine.Postgres:
		if p.Config.Engine.URL == "" {
			return nil, nil, fmt.Errorf("connect: the functions of a postgres engine are read from its server: set engine url in %s", project.ConfigFile)
		}
		url, err := expand(p, "engine url", p.Config.Engine.URL)
		if err != nil {
			return nil, nil, err
		}
		db, err := postgres.Open(ctx, url)
		if err != nil {
			return nil, nil, err
		}
		return db, db, nil
	}
	return nil, nil, fmt.Errorf("connect: unknown engine type %q (want duckdb or postgres)", p.Config.Engine.Type)
}
