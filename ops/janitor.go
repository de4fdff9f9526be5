package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/state"
)

// The janitor removes physical storage — tables, views, parquet prefixes —
// that no environment has needed for longer than a ttl. The ttl runs from
// each snapshot's orphan mark, which promotion sets when the last pointer
// goes and clears when one returns, so a rollback window is exactly the
// ttl after the last use.
//
// Removal is a claim in the state store first (state.Store.RemoveSnapshots,
// one transaction that re-checks that nothing points at the snapshot), and
// only then a drop in the warehouse. An apply reserves the snapshots it
// promotes before it swaps views (beforePromotion → Reserve), so either the
// claim wins and the apply stops with "removed by the janitor; plan again"
// before any view changes, or the reservation wins and the claim leaves the
// snapshot alone. Nothing the janitor dropped is ever pointed at again.

// JanitorOptions tunes Janitor.
type JanitorOptions struct {
	TTL    time.Duration // how long storage outlives its last use
	DryRun bool          // report, remove nothing
	Now    time.Time     // default time.Now
	// Lake is the absolute root of the project's parquet lake; "" when the
	// project has none.
	Lake   string
	Logger *slog.Logger
	// Lock is the janitor's lock when the caller holds it; nil makes
	// Janitor take it (a dry run takes none).
	Lock *planner.Lock
	// Only, when set, restricts the removal to physical relations whose
	// every snapshot is among these fingerprints: what a deleted
	// environment alone used.
	Only []string
}

// Removal is one physical relation removed (or, in a dry run, to remove)
// with the snapshots that used it.
type Removal struct {
	PhysicalTable string    `json:"physicalTable"`
	Model         string    `json:"model"`
	Snapshots     []string  `json:"snapshots"`
	OrphanedAt    time.Time `json:"orphanedAt"` // the latest orphan mark among them
	Lake          string    `json:"lake,omitempty"`
	// Error is a drop that failed after the claim: the state forgot the
	// snapshots, the warehouse still holds the relation.
	Error string `json:"error,omitempty"`
}

// JanitorResult reports what Janitor did.
type JanitorResult struct {
	DryRun  bool      `json:"dryRun"`
	Cutoff  time.Time `json:"cutoff"` // storage orphaned after this is kept
	Removed []Removal `json:"removed"`
	// Waiting counts orphaned physical relations still inside their ttl.
	Waiting int `json:"waiting"`
}

// Janitor removes the physical storage that no environment references
// and whose snapshots were orphaned at or before now - ttl. A relation is
// kept while any snapshot using it is referenced (forward-only and reuse
// share tables), and so are the parents of a referenced view or embedded
// snapshot, which read them at query time. It runs under the global
// janitor lock. wh may be nil for a dry run.
func Janitor(ctx context.Context, st state.Store, wh engine.Engine, opt JanitorOptions) (*JanitorResult, error) {
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opt.TTL < 0 {
		return nil, fmt.Errorf("janitor: negative ttl %s", opt.TTL)
	}
	if opt.Lock == nil && !opt.DryRun {
		lk, err := planner.AcquireLock(ctx, st, planner.JanitorLock, 0)
		if err != nil {
			return nil, err
		}
		defer lk.Release()
	}
	res := &JanitorResult{DryRun: opt.DryRun, Cutoff: now.Add(-opt.TTL).UTC(), Removed: []Removal{}}
	use, err := st.Usage(ctx)
	if err != nil {
		return nil, err
	}
	groups, waiting := orphanGroups(use, res.Cutoff)
	if opt.Only != nil {
		only := map[string]bool{}
		for _, fp := range opt.Only {
			only[fp] = true
		}
		kept := groups[:0]
		for _, g := range groups {
			all := true
			for _, u := range g.snaps {
				all = all && only[u.Fingerprint]
			}
			if all {
				kept = append(kept, g)
			}
		}
		groups = kept
	}
	res.Waiting = waiting
	parquet, err := parquetSnapshots(ctx, st, groups)
	if err != nil {
		return nil, err
	}
	lakeOf := func(g orphanGroup) string {
		for _, u := range g.snaps {
			if parquet[u.Fingerprint] {
				return opt.Lake
			}
		}
		return ""
	}
	if opt.DryRun {
		for _, g := range groups {
			res.Removed = append(res.Removed, g.removal(lakeOf(g)))
		}
		return res, nil
	}
	if wh == nil {
		return nil, errors.New("janitor: no warehouse")
	}
	var fps []string
	for _, g := range groups {
		for _, u := range g.snaps {
			fps = append(fps, u.Fingerprint)
		}
	}
	claimed, err := st.RemoveSnapshots(ctx, fps, res.Cutoff)
	if err != nil {
		return nil, err
	}
	got := map[string]bool{}
	for _, fp := range claimed {
		got[fp] = true
	}
	kinds, err := physicalObjects(ctx, wh)
	if err != nil {
		return nil, err
	}
	// Views first: a view may read a table removed in the same pass.
	sort.SliceStable(groups, func(i, j int) bool {
		return kinds[groups[i].table] == "VIEW" && kinds[groups[j].table] != "VIEW"
	})
	d := wh.Dialect()
	for _, g := range groups {
		all := true
		for _, u := range g.snaps {
			all = all && got[u.Fingerprint]
		}
		if !all {
			// A snapshot of the group was pointed at or reserved since
			// Usage: the relation stays with it.
			log.Info("janitor: kept, in use again", "table", g.table)
			continue
		}
		r := g.removal(lakeOf(g))
		s, t := analysis.SplitName(g.table)
		rel := engine.Relation{Schema: s, Name: t}
		var derr error
		switch kinds[g.table] {
		case "VIEW":
			derr = wh.Exec(ctx, d.DropView(rel))
		case "BASE TABLE":
			derr = wh.Exec(ctx, d.DropTable(rel))
		}
		if derr == nil && r.Lake != "" {
			if _, err := os.Stat(r.Lake); err == nil {
				derr = os.RemoveAll(r.Lake)
			} else {
				r.Lake = ""
			}
		}
		if derr != nil {
			r.Error = derr.Error()
			log.Warn("janitor: the state forgot the snapshot but its storage could not be removed", "table", g.table, "err", derr)
		} else {
			log.Info("janitor: removed", "table", g.table, "orphanedAt", r.OrphanedAt.Format(time.RFC3339))
		}
		res.Removed = append(res.Removed, r)
	}
	sort.Slice(res.Removed, func(i, j int) bool { return res.Removed[i].PhysicalTable < res.Removed[j].PhysicalTable })
	return res, nil
}

// parquetSnapshots are the fingerprints, among the groups', of snapshots
// whose model writes its data to the lake (target parquet): only they have
// a parquet prefix to remove.
func parquetSnapshots(ctx context.Context, st state.Store, groups []orphanGroup) (map[string]bool, error) {
	var fps []string
	for _, g := range groups {
		for _, u := range g.snaps {
			fps = append(fps, u.Fingerprint)
		}
	}
	out := map[string]bool{}
	if len(fps) == 0 {
		return out, nil
	}
	snaps, err := st.Snapshots(ctx, fps)
	if err != nil {
		return nil, err
	}
	for fp, s := range snaps {
		var d analysis.Definition
		if len(s.Definition) > 0 && json.Unmarshal(s.Definition, &d) == nil && d.Target == "parquet" {
			out[fp] = true
		}
	}
	return out, nil
}

// orphanGroup is the snapshots sharing one physical relation.
type orphanGroup struct {
	table string
	snaps []state.SnapshotUsage
}

func (g orphanGroup) removal(lake string) Removal {
	r := Removal{PhysicalTable: g.table, Model: g.snaps[0].Name}
	for _, u := range g.snaps {
		r.Snapshots = append(r.Snapshots, u.Fingerprint)
		if u.OrphanedAt.After(r.OrphanedAt) {
			r.OrphanedAt = u.OrphanedAt.UTC()
		}
	}
	if lake != "" {
		if fp8 := planner.FingerprintPrefix(g.table); fp8 != "" {
			s, t := analysis.SplitName(r.Model)
			r.Lake = filepath.Join(lake, s, t, "fp="+fp8)
		}
	}
	return r
}

// orphanGroups returns the physical relations whose every snapshot is
// unneeded and orphaned at or before cutoff, and how many unneeded ones
// still wait for their ttl.
func orphanGroups(use []state.SnapshotUsage, cutoff time.Time) ([]orphanGroup, int) {
	byFP := map[string]state.SnapshotUsage{}
	byTable := map[string][]state.SnapshotUsage{}
	for _, u := range use {
		byFP[u.Fingerprint] = u
		byTable[u.PhysicalTable] = append(byTable[u.PhysicalTable], u)
	}
	// Needed: referenced; sharing a needed relation; a parent of a needed
	// snapshot that reads its parents at query time.
	needed := map[string]bool{}
	var queue []string
	need := func(fp string) {
		if _, ok := byFP[fp]; ok && !needed[fp] {
			needed[fp] = true
			queue = append(queue, fp)
		}
	}
	for _, u := range use {
		if u.OrphanedAt.IsZero() {
			need(u.Fingerprint)
		}
	}
	for len(queue) > 0 {
		u := byFP[queue[0]]
		queue = queue[1:]
		for _, o := range byTable[u.PhysicalTable] {
			need(o.Fingerprint)
		}
		if u.Kind == "VIEW" || u.Kind == "EMBEDDED" {
			for _, p := range u.Parents {
				need(p)
			}
		}
	}
	var out []orphanGroup
	waiting := 0
	tables := make([]string, 0, len(byTable))
	for t := range byTable {
		tables = append(tables, t)
	}
	sort.Strings(tables)
	for _, t := range tables {
		snaps := byTable[t]
		ripe := true
		for _, u := range snaps {
			ripe = ripe && !needed[u.Fingerprint] && !u.OrphanedAt.After(cutoff)
		}
		switch {
		case ripe:
			out = append(out, orphanGroup{table: t, snaps: snaps})
		case !needed[snaps[0].Fingerprint]:
			waiting++
		}
	}
	return out, waiting
}

// physicalObjects maps each relation of the physical schema ("schema.name")
// to its type: "BASE TABLE" or "VIEW".
func physicalObjects(ctx context.Context, wh engine.Engine) (map[string]string, error) {
	d := wh.Dialect()
	rows, err := wh.Query(ctx, engine.RelationsQuery(d, analysis.PhysicalSchema))
	if err != nil {
		return nil, fmt.Errorf("janitor: list %s: %w", analysis.PhysicalSchema, err)
	}
	out := map[string]string{}
	for _, r := range rows.Values {
		out[analysis.PhysicalSchema+"."+fmt.Sprint(r[0])] = strings.ToUpper(fmt.Sprint(r[1]))
	}
	return out, nil
}
