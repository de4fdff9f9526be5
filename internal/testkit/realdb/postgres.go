package realdb

import (
	"context"
	"net/url"
	"testing"

	"github.com/efmesh/efmesh/engine/postgres"
	"github.com/efmesh/efmesh/internal/testkit"
)

// PostgresDatabase creates a database of the test's own on the throwaway
// server (testkit.PostgresURL), dropped when the test ends, and returns
// its URL.
func PostgresDatabase(t testing.TB) string {
	t.Helper()
	server := testkit.PostgresURL(t)
	ctx := context.Background()
	admin, err := postgres.Open(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := testkit.RandomName("efmesh_t_")
	if err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		if a, err := postgres.Open(ctx, server); err == nil {
			a.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			a.Close()
		}
	})
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
