package state

import (
	"context"
	"maps"
	"slices"
	"sync"
)

// Empty is a Reader with nothing in it: a plan against it is a plan
// against a fresh project (every model added).
var Empty Reader = empty{}

type empty struct{}

func (empty) Snapshots(context.Context, []string) (map[string]Snapshot, error) {
	return map[string]Snapshot{}, nil
}
func (empty) SnapshotHeads(context.Context, []string) (map[string]Snapshot, error) {
	return map[string]Snapshot{}, nil
}
func (empty) Environment(context.Context, string) (map[string]Pointer, error) {
	return map[string]Pointer{}, nil
}
func (empty) Environments(context.Context) ([]string, error)           { return nil, nil }
func (empty) Plans(context.Context, string, int) ([]PlanRecord, error) { return nil, nil }
func (empty) Intervals(context.Context, string) ([]Interval, error)    { return nil, nil }
func (empty) Runs(context.Context, string, int) ([]Run, error)         { return nil, nil }
func (empty) Usage(context.Context) ([]SnapshotUsage, error)           { return nil, nil }

// Cache is a Reader that remembers what it read from another Reader until
// Invalidate: environments, snapshots (a fingerprint the store lacks is
// remembered as absent) and interval ledgers. A plan after an edit then
// reads only the snapshots of fingerprints no plan asked for yet, usually
// none. The journals (Plans, Runs) and Usage are read through.
//
// Its owner invalidates it when the store changed, e.g. when the store's
// Version moved. Reads are serialized; a failed read remembers nothing.
type Cache struct {
	r Reader

	mu        sync.Mutex
	envs      map[string]map[string]Pointer
	names     []string // nil until read
	heads     map[string]*Snapshot
	full      map[string]*Snapshot
	intervals map[string][]Interval
}

var _ Reader = (*Cache)(nil)

// Cached returns an empty cache in front of r.
func Cached(r Reader) *Cache {
	c := &Cache{r: r}
	c.reset()
	return c
}

func (c *Cache) reset() {
	c.envs = map[string]map[string]Pointer{}
	c.names = nil
	c.heads = map[string]*Snapshot{}
	c.full = map[string]*Snapshot{}
	c.intervals = map[string][]Interval{}
}

// Invalidate forgets everything read so far.
func (c *Cache) Invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reset()
}

func (c *Cache) Environment(ctx context.Context, env string) (map[string]Pointer, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ptrs, ok := c.envs[env]; ok {
		return maps.Clone(ptrs), nil
	}
	ptrs, err := c.r.Environment(ctx, env)
	if err != nil {
		return nil, err
	}
	c.envs[env] = ptrs
	return maps.Clone(ptrs), nil
}

func (c *Cache) Environments(ctx context.Context) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names != nil {
		return slices.Clone(c.names), nil
	}
	names, err := c.r.Environments(ctx)
	if err != nil {
		return nil, err
	}
	c.names = append([]string{}, names...)
	return slices.Clone(c.names), nil
}

func (c *Cache) Intervals(ctx context.Context, fp string) ([]Interval, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ivs, ok := c.intervals[fp]; ok {
		return slices.Clone(ivs), nil
	}
	ivs, err := c.r.Intervals(ctx, fp)
	if err != nil {
		return nil, err
	}
	c.intervals[fp] = ivs
	return slices.Clone(ivs), nil
}

func (c *Cache) SnapshotHeads(ctx context.Context, fps []string) (map[string]Snapshot, error) {
	return c.snapshots(ctx, fps, c.heads, c.r.SnapshotHeads)
}

func (c *Cache) Snapshots(ctx context.Context, fps []string) (map[string]Snapshot, error) {
	return c.snapshots(ctx, fps, c.full, c.r.Snapshots)
}

// snapshots answers fps from memo, reading the missing ones with read.
func (c *Cache) snapshots(ctx context.Context, fps []string, memo map[string]*Snapshot,
	read func(context.Context, []string) (map[string]Snapshot, error)) (map[string]Snapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]Snapshot, len(fps))
	var missing []string
	for _, fp := range Unique(fps) {
		s, ok := memo[fp]
		switch {
		case !ok:
			missing = append(missing, fp)
		case s != nil:
			out[fp] = *s
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	got, err := read(ctx, missing)
	if err != nil {
		return nil, err
	}
	for _, fp := range missing {
		if s, ok := got[fp]; ok {
			memo[fp] = &s
			out[fp] = s
		} else {
			memo[fp] = nil
		}
	}
	return out, nil
}

func (c *Cache) Plans(ctx context.Context, env string, limit int) ([]PlanRecord, error) {
	return c.r.Plans(ctx, env, limit)
}

func (c *Cache) Runs(ctx context.Context, env string, limit int) ([]Run, error) {
	return c.r.Runs(ctx, env, limit)
}

func (c *Cache) Usage(ctx context.Context) ([]SnapshotUsage, error) { return c.r.Usage(ctx) }
