package analysis

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/internal/testkit/realdb"
)

// TestEveryBinderErrorOnPostgresOnlyTheUsers: past a column it replaced by
// NULL to bind on, describeAll reports no error the NULL itself causes.
// PostgreSQL's NULL is of type unknown: to_jsonb(NULL) cannot resolve its
// polymorphic type and NULL -> 'k' matches no one operator, where the
// columns they replace resolve. The ungrouped column is the only error
// apply would meet.
func TestEveryBinderErrorOnPostgresOnlyTheUsers(t *testing.T) {
	ctx := context.Background()
	chk, err := postgres.OpenChecker(ctx, realdb.PostgresDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer chk.Close()
	cols := []engine.Column{{Name: "id", Type: "integer"}, {Name: "tier", Type: "smallint"}, {Name: "doc", Type: "jsonb"}}
	rel := chk.StandIn(cols)
	d := serverDescriber{server: chk, relations: map[string][]engine.Column{"raw.c": cols}}
	for _, c := range []struct{ sql, at string }{
		{"SELECT c.id, to_jsonb(c.tier) AS j, count(*) AS n FROM " + rel + " c GROUP BY c.id", "c.tier"},
		{"SELECT c.id, c.doc -> 'k' AS k, count(*) AS n FROM " + rel + " c GROUP BY c.id", "c.doc"},
	} {
		_, errs := describeAll(ctx, d, c.sql)
		var msgs []string
		for _, err := range errs {
			msgs = append(msgs, err.Error())
		}
		var se *engine.SQLError
		if len(errs) != 1 || !errors.As(errs[0], &se) || se.Subtype != engine.SubtypeNotGrouped || se.Position != strings.Index(c.sql, c.at) {
			t.Errorf("%s:\n%s\nwant one not-grouped error at %s", c.sql, strings.Join(msgs, "\n"), c.at)
		}
	}
}
