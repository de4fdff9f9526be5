package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/efmesh/efmesh/internal/testkit"
	"github.com/efmesh/efmesh/state"
	"github.com/efmesh/efmesh/state/statetest"
)

// newSchema returns the name of a schema of the test's own, not created
// yet, and drops it when the test ends.
func newSchema(t *testing.T, url string) string {
	t.Helper()
	return dropLater(t, url, testkit.RandomName("efmesh_state_test_"))
}

// dropLater drops schema name, if it exists, when the test ends.
func dropLater(t *testing.T, url, name string) string {
	t.Helper()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Errorf("drop schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return name
}

func open(t *testing.T, url, schema string) *Store {
	t.Helper()
	s, err := Open(t.Context(), url, WithSchema(schema))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// exec runs statements on the server outside any store, bypassing the
// version check.
func exec(t *testing.T, url string, stmts ...string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, stmt := range stmts {
		if _, err := conn.Exec(t.Context(), stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

func setVersion(t *testing.T, url, schema string, v int) {
	t.Helper()
	exec(t, url, fmt.Sprintf(`UPDATE %s.meta SET value = '%d' WHERE key = 'schema_version'`, pgx.Identifier{schema}.Sanitize(), v))
}

func version(t *testing.T, url, schema string) string {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var v string
	q := `SELECT value FROM ` + pgx.Identifier{schema}.Sanitize() + `.meta WHERE key = 'schema_version'`
	if err := conn.QueryRow(t.Context(), q).Scan(&v); err != nil {
		t.Fatalf("reading the version of %s: %v", schema, err)
	}
	return v
}

func TestConformance(t *testing.T) {
	url := testkit.PostgresURL(t)
	statetest.Run(t, func(t *testing.T) state.Store {
		return open(t, url, newSchema(t, url))
	})
}

func TestShared(t *testing.T) {
	url := testkit.PostgresURL(t)
	statetest.RunShared(t, func(t *testing.T) func() state.Store {
		schema := newSchema(t, url)
		return func() state.Store { return open(t, url, schema) }
	})
}

func TestOpenCreatesSchema(t *testing.T) {
	url := testkit.PostgresURL(t)
	schema := newSchema(t, url)
	s := open(t, url, schema)
	if got := version(t, url, schema); got != strconv.Itoa(state.SchemaVersion) {
		t.Errorf("schema_version = %s, want %d", got, state.SchemaVersion)
	}
	for _, table := range []string{"meta", "snapshots", "environments", "promotions", "plans", "intervals", "runs", "locks"} {
		var n int
		err := s.pool.QueryRow(t.Context(),
			`SELECT count(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2`, schema, table).Scan(&n)
		if err != nil || n != 1 {
			t.Errorf("table %s.%s: %d, %v", schema, table, n, err)
		}
	}
	// Nothing outside the schema.
	var n int
	if err := s.pool.QueryRow(t.Context(),
		`SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'snapshots'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("public.snapshots: %d, %v", n, err)
	}
}

// TestOpenEmptySchema: a schema created beforehand (by a DBA, say) and
// still empty receives the layout.
func TestOpenEmptySchema(t *testing.T) {
	url := testkit.PostgresURL(t)
	schema := newSchema(t, url)
	exec(t, url, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize())
	open(t, url, schema)
	if got := version(t, url, schema); got != "1" {
		t.Errorf("schema_version = %s", got)
	}
}

func TestSchemaVersionMismatch(t *testing.T) {
	url := testkit.PostgresURL(t)
	for _, tc := range []struct {
		version int
		hint    string
	}{
		{0, `has schema version 0, this efmesh uses 1; run "efmesh migrate"`},
		{99, "has schema version 99, this efmesh uses 1; it was written by a newer efmesh; upgrade efmesh"},
	} {
		schema := newSchema(t, url)
		name := open(t, url, schema).name
		setVersion(t, url, schema, tc.version)

		s, err := Open(t.Context(), url, WithSchema(schema))
		if err == nil {
			s.Close()
			t.Fatalf("Open of a version-%d store succeeded", tc.version)
		}
		if !errors.Is(err, state.ErrSchemaVersion) {
			t.Errorf("version %d: error %v does not wrap ErrSchemaVersion", tc.version, err)
		}
		if want := name + " " + tc.hint; err.Error() != want {
			t.Errorf("version %d:\n got %s\nwant %s", tc.version, err, want)
		}
		// Refusing to open writes nothing.
		if got := version(t, url, schema); got != strconv.Itoa(tc.version) {
			t.Errorf("version after a refused Open = %s", got)
		}
	}
}

func TestOpenRefusesForeignSchema(t *testing.T) {
	url := testkit.PostgresURL(t)
	schema := newSchema(t, url)
	exec(t, url, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize(),
		"CREATE TABLE "+pgx.Identifier{schema, "customers"}.Sanitize()+" (id integer)")
	s, err := Open(t.Context(), url, WithSchema(schema))
	if err == nil {
		s.Close()
		t.Fatal("Open of a non-efmesh schema succeeded")
	}
	if !strings.Contains(err.Error(), "not an efmesh state store") {
		t.Errorf("error = %v", err)
	}
}

// TestDescribe: the store's name in messages never carries the password.
func TestDescribe(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"postgres://alice:s3cret@db.example:6543/warehouse?sslmode=disable", "postgres://alice@db.example:6543/warehouse (schema efmesh_state)"},
		{"host=db.example port=5433 user=bob password=s3cret dbname=wh", "postgres://bob@db.example:5433/wh (schema efmesh_state)"},
		{"postgres://carol@[::1]:5432/wh", "postgres://carol@[::1]:5432/wh (schema efmesh_state)"},
	} {
		s, err := connect(context.Background(), tc.url, nil) // connects lazily: no server needed
		if err != nil {
			t.Fatalf("connect(%s): %v", tc.url, err)
		}
		s.Close()
		if s.name != tc.want {
			t.Errorf("name of %s = %q, want %q", tc.url, s.name, tc.want)
		}
	}
}

// TestOddSchemaName: the schema name is quoted wherever it is used.
func TestOddSchemaName(t *testing.T) {
	url := testkit.PostgresURL(t)
	schema := dropLater(t, url, newSchema(t, url)+`_Odd "name"`)
	s := open(t, url, schema)
	statetest.Fill(t, s)
	s.Close()
	statetest.Check(t, open(t, url, schema))
}

func TestPromoteJournals(t *testing.T) {
	url := testkit.PostgresURL(t)
	s := open(t, url, newSchema(t, url))
	statetest.Fill(t, s)
	if err := s.Promote(t.Context(), state.Promotion{Env: "prod", Pointers: map[string]string{}, PlanID: "p2", AppliedBy: "bob"}); err != nil {
		t.Fatal(err)
	}
	rows, err := s.pool.Query(t.Context(), s.q(`SELECT plan_id || ' ' || applied_by || ' ' || pointers::text FROM {s}.promotions WHERE env = 'prod' ORDER BY id`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`p1 ci {"med.stays": "fp1"}`, `p2 bob {}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("promotions journal:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMigrate(t *testing.T) {
	url := testkit.PostgresURL(t)
	schema := newSchema(t, url)
	s := open(t, url, schema)
	statetest.Fill(t, s)
	s.Close()
	// A version-0 store that lacks tables of version 1 gets them.
	q := pgx.Identifier{schema}.Sanitize()
	exec(t, url, "DROP TABLE "+q+".locks", "DROP TABLE "+q+".runs")
	setVersion(t, url, schema, 0)

	from, to, err := Migrate(t.Context(), url, WithSchema(schema))
	if err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	if from != 0 || to != state.SchemaVersion {
		t.Errorf("Migrate = %d -> %d, want 0 -> %d", from, to, state.SchemaVersion)
	}
	if got := version(t, url, schema); got != "1" {
		t.Errorf("version after Migrate = %s, want 1", got)
	}
	s = open(t, url, schema)
	statetest.Check(t, s)
	if err := s.RecordRun(t.Context(), state.Run{ID: "r1", Env: "prod", Outcome: state.RunOK}); err != nil {
		t.Errorf("runs after Migrate: %v", err)
	}
	if _, ok, err := s.TryLock(t.Context(), state.Lock{Name: "g", Holder: "h", ExpiresAt: time.Now().Add(time.Minute)}, nil); err != nil || !ok {
		t.Errorf("locks after Migrate: %v, %v", ok, err)
	}

	// Up to date: nothing to do.
	from, to, err = Migrate(t.Context(), url, WithSchema(schema))
	if err != nil || from != state.SchemaVersion || to != state.SchemaVersion {
		t.Errorf("Migrate of a current store = %d, %d, %v; want a no-op", from, to, err)
	}
}

func TestMigrateRefuses(t *testing.T) {
	url := testkit.PostgresURL(t)
	t.Run("newer", func(t *testing.T) {
		schema := newSchema(t, url)
		open(t, url, schema).Close()
		setVersion(t, url, schema, 99)
		_, _, err := Migrate(t.Context(), url, WithSchema(schema))
		if !errors.Is(err, state.ErrSchemaVersion) || !strings.Contains(err.Error(), "upgrade efmesh") {
			t.Errorf("Migrate of a newer store: %v", err)
		}
		if got := version(t, url, schema); got != "99" {
			t.Errorf("Migrate of a newer store changed its version to %s", got)
		}
	})
	t.Run("missing", func(t *testing.T) {
		schema := newSchema(t, url)
		if _, _, err := Migrate(t.Context(), url, WithSchema(schema)); err == nil || !strings.Contains(err.Error(), "holds no efmesh state") {
			t.Errorf("Migrate of a missing schema: %v", err)
		}
		var n int
		conn, err := pgx.Connect(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, schema).Scan(&n); err != nil || n != 0 {
			t.Errorf("Migrate created schema %s: %d, %v", schema, n, err)
		}
	})
}

func TestMigrationsCoverEveryVersion(t *testing.T) {
	if len(migrations) != state.SchemaVersion {
		t.Errorf("%d migration steps for schema version %d: a new version needs its step", len(migrations), state.SchemaVersion)
	}
}

// TestConcurrentOpen: processes (stores with pools of their own) opening a
// fresh schema at once create it once and all succeed. The race is narrow,
// so it is run on several fresh schemas.
func TestConcurrentOpen(t *testing.T) {
	url := testkit.PostgresURL(t)
	ctx := context.Background()
	for range 10 {
		schema := newSchema(t, url)
		errs := make(chan error, 8)
		for range 8 {
			go func() {
				s, err := Open(ctx, url, WithSchema(schema))
				if err == nil {
					err = s.Close()
				}
				errs <- err
			}()
		}
		for range 8 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestLockAcrossStores: stores with pools of their own, as processes on
// different machines would have, exclude each other through one lock.
func TestLockAcrossStores(t *testing.T) {
	url := testkit.PostgresURL(t)
	schema := newSchema(t, url)
	stores := []*Store{open(t, url, schema), open(t, url, schema), open(t, url, schema)}
	ctx := t.Context()

	t.Run("OneWinner", func(t *testing.T) {
		for round := range 20 {
			name := fmt.Sprintf("race-%d", round)
			var wins atomic.Int32
			var wg sync.WaitGroup
			for i := range 12 {
				st := stores[i%len(stores)]
				wg.Go(func() {
					now := time.Now()
					l := state.Lock{Name: name, Holder: fmt.Sprintf("h%d", i), Host: "m", PID: i, AcquiredAt: now, ExpiresAt: now.Add(time.Minute)}
					_, ok, err := st.TryLock(ctx, l, nil)
					if err != nil {
						t.Errorf("TryLock(%s): %v", l.Holder, err)
					}
					if ok {
						wins.Add(1)
					}
				})
			}
			wg.Wait()
			if n := wins.Load(); n != 1 {
				t.Fatalf("round %d: %d holders won the lock", round, n)
			}
		}
	})

	// MutualExclusion: holders on every store take, use and release one
	// lock in a loop; no two are ever inside at once.
	t.Run("MutualExclusion", func(t *testing.T) {
		var inside, entries atomic.Int32
		var wg sync.WaitGroup
		for i, st := range stores {
			for g := range 3 {
				wg.Go(func() {
					for n := 0; entries.Load() < 60; n++ {
						now := time.Now()
						l := state.Lock{Name: "env:prod", Holder: fmt.Sprintf("s%d/g%d/%d", i, g, n), Host: "m", PID: i, AcquiredAt: now, ExpiresAt: now.Add(time.Minute)}
						_, ok, err := st.TryLock(ctx, l, nil)
						if err != nil {
							t.Errorf("TryLock: %v", err)
							return
						}
						if !ok {
							time.Sleep(time.Millisecond)
							continue
						}
						if inside.Add(1) != 1 {
							t.Errorf("%s entered while another holder was inside", l.Holder)
						}
						entries.Add(1)
						time.Sleep(time.Millisecond)
						inside.Add(-1)
						if err := st.Unlock(ctx, l.Name, l.Holder); err != nil {
							t.Errorf("Unlock: %v", err)
							return
						}
					}
				})
			}
		}
		wg.Wait()
	})

	// Reclaim: the planner's rule, a holder gone from this host loses the
	// lock at once, one on another host only when its lock expires.
	t.Run("Reclaim", func(t *testing.T) {
		a, b := stores[0], stores[1]
		now := time.Now()
		gone := func(host string) func(state.Lock) bool {
			return func(held state.Lock) bool { return held.Host == host && held.PID == 999999 }
		}
		held := state.Lock{Name: "env:dev", Holder: "dead", Host: "m1", PID: 999999, AcquiredAt: now, ExpiresAt: now.Add(time.Hour)}
		if _, ok, err := a.TryLock(ctx, held, nil); err != nil || !ok {
			t.Fatalf("TryLock(dead) = %v, %v", ok, err)
		}
		fromOther := state.Lock{Name: "env:dev", Holder: "other", Host: "m2", PID: 7, AcquiredAt: now, ExpiresAt: now.Add(time.Hour)}
		if got, ok, err := b.TryLock(ctx, fromOther, gone("m2")); err != nil || ok || got.Holder != "dead" {
			t.Fatalf("a process of another host took a live-looking lock: %+v, %v, %v", got, ok, err)
		}
		later := fromOther
		later.AcquiredAt, later.ExpiresAt = now.Add(time.Hour), now.Add(2*time.Hour)
		if _, ok, err := b.TryLock(ctx, later, gone("m2")); err != nil || !ok {
			t.Fatalf("TryLock after expiry = %v, %v", ok, err)
		}
		sameHost := state.Lock{Name: "env:dev", Holder: "next", Host: "m2", PID: 8, AcquiredAt: now, ExpiresAt: now.Add(time.Hour)}
		if err := a.RefreshLock(ctx, "env:dev", "other", now.Add(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, err := a.pool.Exec(ctx, a.q(`UPDATE {s}.locks SET pid = 999999 WHERE name = 'env:dev'`)); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := a.TryLock(ctx, sameHost, gone("m2")); err != nil || !ok || got.Holder != "next" {
			t.Fatalf("a dead holder of this host kept its lock: %+v, %v, %v", got, ok, err)
		}
		if err := b.Unlock(ctx, "env:dev", "other"); !errors.Is(err, state.ErrLockLost) {
			t.Errorf("Unlock by the reclaimed holder = %v, want ErrLockLost", err)
		}
	})
}

// TestOpenExisting: a reader opens a store that is there and creates none.
func TestOpenExisting(t *testing.T) {
	url := testkit.PostgresURL(t)
	schema := newSchema(t, url)
	if s, err := OpenExisting(t.Context(), url, WithSchema(schema)); !errors.Is(err, state.ErrNotFound) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("OpenExisting of a missing store = %v, want ErrNotFound", err)
	}
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, schema).Scan(&n); err != nil || n != 0 {
		t.Fatalf("OpenExisting created schema %s: %d, %v", schema, n, err)
	}
	open(t, url, schema).Close()
	s, err := OpenExisting(t.Context(), url, WithSchema(schema))
	if err != nil {
		t.Fatalf("OpenExisting of a store: %v", err)
	}
	defer s.Close()
	if envs, err := s.Environments(t.Context()); err != nil || len(envs) != 0 {
		t.Fatalf("Environments = %v, %v", envs, err)
	}
	setVersion(t, url, schema, state.SchemaVersion+1)
	if _, err := OpenExisting(t.Context(), url, WithSchema(schema)); !errors.Is(err, state.ErrSchemaVersion) {
		t.Fatalf("OpenExisting of a newer store = %v, want ErrSchemaVersion", err)
	}
}
