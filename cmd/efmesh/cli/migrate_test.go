package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/project"
)

// downgradeStore rewrites the project's store as an efmesh of fingerprint
// version v would have written it: every snapshot of the project's
// current models under its version-v fingerprint and own hash, with its
// pointers, ledger and parents. The physical relations stay as they are
// (a store names them; their names need not follow the fingerprint).
func downgradeStore(t *testing.T, dir string, v int) {
	t.Helper()
	// An older store comes with another efmesh binary, which the no-op
	// digest stamps; written in place here, so the digest goes too.
	forgetNoop(t, dir)
	ctx := context.Background()
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := connect.Workbench(p)
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	a, err := analysis.Analyze(ctx, p, wb)
	if err != nil {
		t.Fatal(err)
	}
	now, err := analysis.FingerprintsAt(a, analysis.FingerprintVersion)
	if err != nil {
		t.Fatal(err)
	}
	then, err := analysis.FingerprintsAt(a, v)
	if err != nil {
		t.Fatal(err)
	}
	older := map[string]string{}
	for name, id := range now {
		older[id.Fingerprint] = then[name].Fingerprint
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, ".efmesh", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT fingerprint, parents FROM snapshots`)
	if err != nil {
		t.Fatal(err)
	}
	parents := map[string]string{}
	for rows.Next() {
		var fp, pj string
		if err := rows.Scan(&fp, &pj); err != nil {
			t.Fatal(err)
		}
		parents[fp] = pj
	}
	rows.Close()
	for name, id := range now {
		old := then[name]
		var ps map[string]string
		if err := json.Unmarshal([]byte(parents[id.Fingerprint]), &ps); err != nil {
			t.Fatalf("%s: parents %q: %v", name, parents[id.Fingerprint], err)
		}
		for k, fp := range ps {
			ps[k] = older[fp]
		}
		pj, _ := json.Marshal(ps)
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`UPDATE snapshots SET fingerprint = ?, fingerprint_version = ?, own_hash = ?, parents = ? WHERE fingerprint = ?`,
				[]any{old.Fingerprint, v, old.OwnHash, string(pj), id.Fingerprint}},
			{`UPDATE environments SET fingerprint = ? WHERE fingerprint = ?`, []any{old.Fingerprint, id.Fingerprint}},
			{`UPDATE intervals SET fingerprint = ? WHERE fingerprint = ?`, []any{old.Fingerprint, id.Fingerprint}},
		} {
			if _, err := db.Exec(q.sql, q.args...); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestFingerprintUpgrade: a store written by an older fingerprint version
// stops plan, apply and run with an error naming efmesh migrate; migrate
// backs the store up and carries the snapshots over, so that the plan
// finds no changes (the data is kept); a model changed since is compared
// as any previous version. A newer version is refused.
func TestFingerprintUpgrade(t *testing.T) {
	dir := writeProject(t, threeLevels())
	mustRun(t, dir, "apply", "dev", "--yes")
	top := query(t, dir, "SELECT * FROM dev__m.top ORDER BY ALL")
	tables := physicalTables(t, dir)
	downgradeStore(t, dir, 1)

	for _, args := range [][]string{{"plan", "dev"}, {"apply", "dev", "--yes"}, {"run", "dev"}, {"plan", "qa"}} {
		code, out, errs := run(t, dir, args...)
		if code != ExitError || !strings.Contains(out+errs, "made by fingerprint version 1, this efmesh uses version 2; run \"efmesh migrate\"") {
			t.Fatalf("efmesh %s over an older store: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
		}
	}
	out := mustRun(t, dir, "migrate")
	if !strings.Contains(out, "Migrated snapshots from fingerprint version 1 to 2: 3 kept their data") || !strings.Contains(out, "state.db.bak-fp1-") {
		t.Fatalf("migrate:\n%s", out)
	}
	backups, _ := filepath.Glob(filepath.Join(dir, ".efmesh", "state.db.bak-fp1-*"))
	if len(backups) != 1 {
		t.Fatalf("backups: %v", backups)
	}
	if p := planJSONOf(t, dir, "dev"); p.HasChanges {
		t.Fatalf("plan after migrate has changes: %v", changed(p))
	}
	if out := mustRun(t, dir, "apply", "dev", "--yes"); !strings.Contains(out, "No changes") {
		t.Fatalf("apply after migrate:\n%s", out)
	}
	if got := query(t, dir, "SELECT * FROM dev__m.top ORDER BY ALL"); got != top {
		t.Fatalf("dev__m.top after migrate: %s, was %s", got, top)
	}
	if got := physicalTables(t, dir); got != tables {
		t.Fatalf("physical tables after migrate: %s, were %s", got, tables)
	}
	if out := mustRun(t, dir, "migrate"); !strings.Contains(out, "Snapshots are up to date (fingerprint version 2)") {
		t.Fatalf("a second migrate:\n%s", out)
	}

	// An older store whose m.top changed since: the others keep their
	// data, m.top is compared as a previous version.
	downgradeStore(t, dir, 1)
	editFile(t, dir, "models/top.sql", func(s string) string { return strings.Replace(s, "upper(name)", "lower(name)", 1) })
	out = mustRun(t, dir, "migrate", "--json")
	var mj struct {
		Fingerprints struct {
			From      []int  `json:"from"`
			Remapped  int    `json:"remapped"`
			Restamped int    `json:"restamped"`
			Backup    string `json:"backup"`
		} `json:"fingerprints"`
	}
	if err := json.Unmarshal([]byte(out), &mj); err != nil || mj.Fingerprints.Remapped != 2 || mj.Fingerprints.Restamped != 1 || mj.Fingerprints.Backup == "" {
		t.Fatalf("migrate --json with a changed model: %v\n%s", err, out)
	}
	p := planJSONOf(t, dir, "dev")
	if got := strings.Join(changed(p), " "); got != "m.top:breaking:true" {
		t.Fatalf("plan after migrating with a changed model: %s", got)
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	if got := query(t, dir, "SELECT name FROM dev__m.top ORDER BY ALL"); got != "[[ada] [bob] [cy]]" {
		t.Fatalf("dev__m.top after the change: %s", got)
	}

	// Snapshots of a newer version are a newer efmesh's: refused. (They
	// come with another binary, which the no-op digest stamps.)
	forgetNoop(t, dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, ".efmesh", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE snapshots SET fingerprint_version = fingerprint_version + 1 WHERE name = 'm.top'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, args := range [][]string{{"plan", "dev"}, {"migrate"}} {
		if code, out, errs := run(t, dir, args...); code != ExitError || !strings.Contains(out+errs, "run an efmesh at least as new") {
			t.Fatalf("efmesh %s over a newer snapshot: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
		}
	}
}
