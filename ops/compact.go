package ops

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
)

// Compaction merges the small files of a settled partition of a parquet
// lake into one data.parquet, de-duplicating by the model's grain (the
// first arrival of a key wins: files are ordered by modification time).
// Targets come from the project only: the partitions of
// INCREMENTAL_BY_TIME_RANGE models with target parquet.
//
// It is cooperative, not transactional: it holds no claim in the state
// store and does not serialize with another compactor. It coordinates with
// writers by convention:
//
//   - a partition dated today or later is left alone (the live writer owns it);
//   - so is one whose newest file is younger than the grace period;
//   - the merged file is written under a temporary name and renamed over
//     data.parquet, so a reader sees the old file or the merged one;
//   - only the files listed before the merge are deleted, so a file that
//     arrives during the run stays; a listed file that changed meanwhile
//     makes the partition be left alone.

// Reasons a partition is left alone.
const (
	CompactCurrentDay     = "current-day"
	CompactGracePeriod    = "grace-period"
	CompactAlreadyCompact = "already-compact"
	CompactUndated        = "undated"
	CompactChanged        = "changed-during-run"
)

// DefaultCompactGrace is how long the newest file of a partition must have
// rested before the partition is merged.
const DefaultCompactGrace = 10 * time.Minute

// CompactOptions tunes Compact.
type CompactOptions struct {
	Lake   string // absolute root of the project's lake
	Model  string // only this model; "" = every eligible model
	DryRun bool   // report what would be merged, write nothing
	Now    time.Time
	// Wall is the clock file modification times are compared with (the
	// grace period); default time.Now. Now decides what "today" is.
	Wall  func() time.Time
	Grace time.Duration // default DefaultCompactGrace; < 0 means none

	beforeMerge func(dir string) // tests: runs between listing and merging
}

// CompactPartition is one partition and what Compact did with it.
type CompactPartition struct {
	Model     string   `json:"model"`
	Partition string   `json:"partition"` // slash path relative to the lake
	Files     int      `json:"files"`     // files listed
	Action    string   `json:"action"`    // merged | would-merge | left
	Reason    string   `json:"reason,omitempty"`
	DedupKey  []string `json:"dedupKey"`
}

// CompactResult reports what Compact did.
type CompactResult struct {
	DryRun     bool               `json:"dryRun"`
	Partitions []CompactPartition `json:"partitions"`
}

// Compact merges the settled partitions of the project's parquet
// incremental models. eng runs the merge (an in-memory DuckDB suffices);
// it must read and write parquet.
func Compact(ctx context.Context, p *project.Project, eng engine.Engine, opt CompactOptions) (*CompactResult, error) {
	if opt.Wall == nil {
		opt.Wall = time.Now
	}
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	if opt.Grace == 0 {
		opt.Grace = DefaultCompactGrace
	}
	var models []*project.Model
	eligible := func(m *project.Model) bool {
		return m.Kind.Name == project.KindIncrementalByTimeRange && planner.TargetOf(m) == "parquet"
	}
	if opt.Model != "" {
		m := p.ByName[opt.Model]
		if m == nil {
			return nil, fmt.Errorf("compact: unknown model %q", opt.Model)
		}
		if !eligible(m) {
			return nil, fmt.Errorf("compact: %s is not compactable: compact merges the partitions of INCREMENTAL_BY_TIME_RANGE models with target parquet", m.Name)
		}
		models = append(models, m)
	} else {
		for _, m := range p.Models {
			if eligible(m) && p.ByName[m.Name] == m {
				models = append(models, m)
			}
		}
	}
	res := &CompactResult{DryRun: opt.DryRun, Partitions: []CompactPartition{}}
	if len(models) == 0 {
		return res, nil
	}
	if strings.Contains(opt.Lake, "://") {
		return nil, fmt.Errorf("compact: the lake %s is remote; only a local lake can be compacted here", opt.Lake)
	}
	w, okW := eng.(planner.ParquetWriter)
	fr, okR := eng.(parquetMerger)
	if !opt.DryRun && (!okW || !okR) {
		return nil, &engine.FeatureError{Engine: eng.Dialect().Name(), Feature: "compacting parquet partitions"}
	}
	today := analysis.Day.Floor(opt.Now)
	for _, m := range models {
		versions, _ := filepath.Glob(filepath.Join(opt.Lake, m.Schema, m.Table, "fp=*"))
		sort.Strings(versions)
		for _, v := range versions {
			parts, _ := filepath.Glob(filepath.Join(v, "interval=*"))
			sort.Strings(parts)
			for _, dir := range parts {
				if err := ctx.Err(); err != nil {
					return res, err
				}
				cp, err := compactPartition(ctx, m, dir, opt, today, w, fr)
				if err != nil {
					return res, fmt.Errorf("compact %s: %w", dir, err)
				}
				if cp == nil {
					continue
				}
				rel, _ := filepath.Rel(opt.Lake, dir)
				cp.Partition = filepath.ToSlash(rel)
				res.Partitions = append(res.Partitions, *cp)
			}
		}
	}
	return res, nil
}

// parquetMerger is the engine capability compaction needs besides
// writing parquet: a query merging a partition's files.
type parquetMerger interface {
	// MergeParquet renders a query over the parquet files at paths, by
	// column name and with every column they have, keeping only the first
	// row of each key (files in the order of paths) when keys are given.
	MergeParquet(paths, keys []string) (string, error)
}

type listedFile struct {
	path string
	info os.FileInfo
}

// compactPartition decides on one partition folder and merges it when it
// is settled. nil: not a partition (a stray file).
func compactPartition(ctx context.Context, m *project.Model, dir string, opt CompactOptions, today time.Time,
	w planner.ParquetWriter, mg parquetMerger) (*CompactPartition, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, nil
	}
	cp := &CompactPartition{Model: m.Name, Action: "left", DedupKey: m.Grain}
	if cp.DedupKey == nil {
		cp.DedupKey = []string{}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []listedFile
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".parquet") {
			continue // temporary files (*.tmp) of a writer are not data
		}
		info, err := e.Info()
		if err != nil {
			continue // gone since the listing
		}
		files = append(files, listedFile{filepath.Join(dir, e.Name()), info})
	}
	cp.Files = len(files)
	key := strings.TrimPrefix(filepath.Base(dir), "interval=")
	start, dated := partitionStart(key)
	var newest time.Time
	for _, f := range files {
		if f.info.ModTime().After(newest) {
			newest = f.info.ModTime()
		}
	}
	switch {
	case !dated:
		cp.Reason = CompactUndated
	case !start.Before(today):
		cp.Reason = CompactCurrentDay
	case len(files) == 0 || len(files) == 1 && filepath.Base(files[0].path) == "data.parquet":
		cp.Reason = CompactAlreadyCompact
	case opt.Grace > 0 && opt.Wall().Sub(newest) < opt.Grace:
		cp.Reason = CompactGracePeriod
	}
	if cp.Reason != "" {
		return cp, nil
	}
	if opt.DryRun {
		cp.Action = "would-merge"
		return cp, nil
	}
	// The first arrival of a key wins: order by modification time, then name.
	sort.SliceStable(files, func(i, j int) bool {
		a, b := files[i].info.ModTime(), files[j].info.ModTime()
		if !a.Equal(b) {
			return a.Before(b)
		}
		return files[i].path < files[j].path
	})
	if opt.beforeMerge != nil {
		opt.beforeMerge(dir)
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.path
	}
	// Every column, never a list: a column a writer started emitting later
	// survives, and two schema generations merge.
	q, err := mg.MergeParquet(paths, m.Grain)
	if err != nil {
		return nil, err
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, ".compact-"+hex.EncodeToString(rnd[:])+".tmp")
	if err := w.WriteParquet(ctx, q, tmp); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	// A listed file rewritten since the listing (a restate, a writer that
	// rewrites in place) would be lost by the rename: leave the partition.
	for _, f := range files {
		now, err := os.Stat(f.path)
		if err != nil || !now.ModTime().Equal(f.info.ModTime()) || now.Size() != f.info.Size() {
			os.Remove(tmp)
			cp.Reason = CompactChanged
			return cp, nil
		}
	}
	target := filepath.Join(dir, "data.parquet")
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	for _, f := range files {
		if f.path != target {
			if err := os.Remove(f.path); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
		}
	}
	cp.Action = "merged"
	return cp, nil
}

// partitionStart parses an interval key (2026-01-05 or 2026-01-05T06).
func partitionStart(key string) (time.Time, bool) {
	for _, l := range []string{"2006-01-02", "2006-01-02T15"} {
		if t, err := time.ParseInLocation(l, key, time.UTC); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
