package workspace

import (
	"context"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/state"
)

// TestNoopDigestPostgresState: with the state store in PostgreSQL the
// digest answers an unchanged project, and another writer's promotion of
// the environment (the store's token moved) is a miss.
func TestNoopDigestPostgresState(t *testing.T) {
	server := testkit.PostgresURL(t)
	ctx := context.Background()
	db := testkit.RandomName("efmesh_noop_")
	admin := func(stmt string) error {
		conn, err := pgx.Connect(ctx, server)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, stmt)
		return err
	}
	if err := admin("CREATE DATABASE " + db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := admin("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db
	files := map[string]string{}
	for rel, body := range noopShop {
		files[rel] = body
	}
	files["efmesh.yaml"] += "state: {type: postgres, url: '" + u.String() + "'}\n"
	dir := writeProject(t, files)
	applyEnv(t, dir, "dev", noopNow)
	if _, quick := planPlain(t, dir, "dev", nil, noopNow); quick {
		t.Fatal("the first plan was quick")
	}
	if _, quick := planPlain(t, dir, "dev", nil, noopNow); !quick {
		t.Fatal("an unchanged project was not answered from the digest")
	}
	// Another writer promotes dev: the same files, the store moved.
	w, err := Open(ctx, dir, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	st, err := w.OpenStore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	env, err := st.Environment(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	ptrs := map[string]string{}
	for model, p := range env {
		ptrs[model] = p.Fingerprint
	}
	if err := st.Promote(ctx, state.Promotion{Env: "dev", Pointers: ptrs, PlanID: "other", AppliedBy: "someone else", At: noopNow}); err != nil {
		t.Fatal(err)
	}
	if _, quick := planPlain(t, dir, "dev", nil, noopNow); quick {
		t.Fatal("answered from the digest after another writer promoted dev")
	}
}
