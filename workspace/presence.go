package workspace

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace/digest"
)

// Presence is the editor's copy of what the warehouse's catalog lists, so
// that Preview (lenses, hints, the side bar) sees what Plan sees — a table
// dropped behind efmesh's back is rebuilt — without opening the warehouse
// per keystroke: one catalog query per set of schemas (one per
// environment), kept until Invalidate (after an apply, a plan, a save), until
// the state file or the warehouse's files move (another process's apply),
// or until it is older than its time to live. A warehouse another process is
// writing is not waited for: the check is skipped until it is free.
//
// One Presence serves every Workspace made with it in Options, of any
// project (listings are kept per project folder); it is safe for
// concurrent use.
type Presence struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	gen     int64
	entries map[string]presenceEntry
}

type presenceEntry struct {
	listed []engine.Listed
	at     time.Time
	// version is the state file's and the warehouse's stamps, taken
	// before the listing was read: another process's apply moves them,
	// and the listing is read again at once. nil: not watchable (a
	// server), the time to live alone decides.
	version []digest.Stamp
	settled bool // the version's stamps were settled when taken
}

// presenceVersion is what moves with any write another process makes to
// proj's state store or warehouse: their files' stamps. nil when they are
// not files (PostgreSQL).
func presenceVersion(proj *project.Project) []digest.Stamp {
	st, ok := digest.StoreStamps(proj)
	if !ok {
		return nil
	}
	wh, ok := digest.WarehouseStamps(proj)
	if !ok {
		return nil
	}
	return append(st, wh...)
}

// fresh reports whether e still answers at now for the version stamps:
// younger than ttl and, when watchable, the same stamps, settled when they
// were taken (a write within the clock's tick would not move them).
func (e presenceEntry) fresh(now time.Time, ttl time.Duration, version []digest.Stamp) bool {
	if now.Sub(e.at) >= ttl {
		return false
	}
	if e.version == nil && version == nil {
		return true
	}
	return e.settled && slices.Equal(e.version, version)
}

// NewPresence makes a Presence whose listings live ttl at most, by the
// clock now (default time.Now).
func NewPresence(ttl time.Duration, now func() time.Time) *Presence {
	if now == nil {
		now = time.Now
	}
	return &Presence{ttl: ttl, now: now, entries: map[string]presenceEntry{}}
}

// Invalidate forgets every listing: the warehouse changed (an apply) or
// may have (a plan, a save). The next Preview queries the catalog again.
func (p *Presence) Invalidate() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gen++
	clear(p.entries)
}

// Generation changes with every Invalidate and with every listing read
// anew: a cache of plans keyed by it holds no plan made from an older
// listing.
func (p *Presence) Generation() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gen
}

// catalog is the planner.CatalogReader of p for the project proj.
func (p *Presence) catalog(proj *project.Project, d engine.Dialect, opts []connect.WarehouseOption) planner.CatalogReader {
	return presenceCatalog{p: p, proj: proj, d: d, opts: opts}
}

type presenceCatalog struct {
	p    *Presence
	proj *project.Project
	d    engine.Dialect
	opts []connect.WarehouseOption
}

func (c presenceCatalog) Dialect() engine.Dialect { return c.d }

// Relations answers from the listing of the same request when it is fresh,
// else opens the warehouse read-only without waiting (a busy one wraps
// planner.ErrCatalogUnavailable) and lists it once.
func (c presenceCatalog) Relations(ctx context.Context, schemas []string, withColumns []engine.Relation) ([]engine.Listed, error) {
	cols := make([]string, len(withColumns))
	for i, r := range withColumns {
		cols[i] = r.String()
	}
	key := c.proj.Root + "|" + strings.Join(schemas, ",") + "|" + strings.Join(cols, ",")
	p := c.p
	version := presenceVersion(c.proj)
	settled := digest.Settled(version, time.Now())
	p.mu.Lock()
	if e, ok := p.entries[key]; ok && e.fresh(p.now(), p.ttl, version) {
		p.mu.Unlock()
		return slices.Clone(e.listed), nil
	}
	p.mu.Unlock()
	wh, err := connect.ReadWarehouse(ctx, c.proj, append(slices.Clone(c.opts), connect.LockTimeout(0))...)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", planner.ErrCatalogUnavailable, err)
	}
	var listed []engine.Listed
	if wh != nil {
		defer wh.Close()
		cat, ok := wh.(engine.Catalog)
		if !ok {
			return nil, fmt.Errorf("the %s engine cannot list its relations", wh.Dialect().Name())
		}
		if listed, err = cat.Relations(ctx, schemas, withColumns); err != nil {
			return nil, err
		}
	}
	p.mu.Lock()
	p.entries[key] = presenceEntry{listed: listed, at: p.now(), version: version, settled: settled}
	p.gen++
	p.mu.Unlock()
	return slices.Clone(listed), nil
}
