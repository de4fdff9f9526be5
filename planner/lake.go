package planner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// A model with `target parquet` keeps its data as parquet files in the
// project's lake instead of a warehouse table:
//
//	<lake>/<schema>/<table>/fp=<fp8>/data.parquet                  FULL, SEED
//	<lake>/<schema>/<table>/fp=<fp8>/interval=<key>/data.parquet   INCREMENTAL_BY_TIME_RANGE
//
// One partition per interval: computing an interval rewrites its file (to
// a temporary name, then a rename, so a reader or a crash never sees a
// partial file), which makes a recomputation as safe as a table's
// DELETE+INSERT. The physical relation is a view over the files
// (union_by_name, the declared columns cast), so refs and promotion work as
// for tables.

// ParquetWriter is the engine capability a parquet target needs.
type ParquetWriter interface {
	WriteParquet(ctx context.Context, query, path string) error
}

// TargetOf returns a model's materialization target ("table" by default).
func TargetOf(m *project.Model) string {
	if m.Target == "" {
		return "table"
	}
	return m.Target
}

// checkTarget fails with a FeatureError for a target the kind or the
// engine cannot have.
func (b *builder) checkTarget(m *project.Model) error {
	switch t := TargetOf(m); t {
	case "table":
		return nil
	case "parquet":
		switch m.Kind.Name {
		case project.KindFull, project.KindSeed, project.KindIncrementalByTimeRange:
		default:
			return &engine.FeatureError{Engine: b.d.Name(), Feature: fmt.Sprintf("target parquet for %s models (%s)", m.Kind.Name, m.Name)}
		}
		if _, ok := b.wh.(ParquetWriter); !ok {
			return &engine.FeatureError{Engine: b.d.Name(), Feature: "target parquet (" + m.Name + ")"}
		}
		if _, ok := b.wh.(engine.FileReader); !ok {
			return &engine.FeatureError{Engine: b.d.Name(), Feature: "target parquet (" + m.Name + ")"}
		}
		if strings.Contains(b.lakeRoot(), "://") {
			return &engine.FeatureError{Engine: b.d.Name(), Feature: "a remote lake " + b.lakeRoot() + " (the httpfs extension is not available)"}
		}
		return nil
	default:
		return &engine.FeatureError{Engine: b.d.Name(), Feature: fmt.Sprintf("target %s (%s): its extension is not available", t, m.Name)}
	}
}

func (b *builder) lakeRoot() string { return lakeRootOf(b.a.Project) }

// lakePrefix is the folder of one snapshot's files.
func (b *builder) lakePrefix(m *project.Model, fp string) string {
	return lakePrefixOf(b.lakeRoot(), m.Schema, m.Table, fp[:8])
}

// intervalKey names an interval's partition: 2026-01-05 or 2026-01-05T06.
func intervalKey(g analysis.Grain, start time.Time) string {
	if g == analysis.Hour {
		return start.UTC().Format("2006-01-02T15")
	}
	return start.UTC().Format("2006-01-02")
}

// writeFile writes query to path through a temporary file and a rename.
func (b *builder) writeFile(ctx context.Context, query, path string, opt backfillOptions) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	w := b.wh.(ParquetWriter)
	if err := retry(ctx, opt.retries, opt.retryDelay, func() error { return w.WriteParquet(ctx, query, tmp) }); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// lakeView points the snapshot's physical relation at its files, or at an
// empty relation of the declared columns while there are none.
func (b *builder) lakeView(ctx context.Context, info *analysis.ModelInfo, glob string, cols []engine.Column) error {
	m := info.Model
	rel := analysis.PhysicalRelation(b.d, m, b.physFP(info))
	files, _ := filepath.Glob(glob)
	var q string
	if len(files) == 0 {
		sel := make([]string, len(cols))
		for i, c := range cols {
			sel[i] = "CAST(NULL AS " + c.Type + ") AS " + b.d.Quote(c.Name)
		}
		q = "SELECT " + strings.Join(sel, ", ") + " WHERE false"
	} else {
		var err error
		q, err = b.wh.(engine.FileReader).ReadFiles(engine.FileSpec{Paths: []string{glob}, Format: "parquet", Columns: analysis.Declared(m),
			Options: []engine.FileOption{{Name: "union_by_name", Value: "true"}, {Name: "hive_partitioning", Value: "false"}}})
		if err != nil {
			return err
		}
	}
	return b.wh.Exec(ctx, b.d.ReplaceView(rel, q))
}

// buildLakeFull writes a FULL or SEED model's rows to one file per version.
func (b *builder) buildLakeFull(ctx context.Context, info *analysis.ModelInfo, opt backfillOptions) error {
	m := info.Model
	q, err := b.Query(info)
	if err != nil {
		return err
	}
	if m.Kind.Name.HasBody() {
		if err := b.checkContract(ctx, info, q); err != nil {
			return err
		}
	}
	cols, err := b.columns(ctx, m, q)
	if err != nil {
		return err
	}
	path := filepath.Join(b.lakePrefix(m, b.physFP(info)), "data.parquet")
	if err := b.writeFile(ctx, q, path, opt); err != nil {
		return err
	}
	return b.lakeView(ctx, info, path, cols)
}

// backfillLake computes ranges of an INCREMENTAL_BY_TIME_RANGE model with
// target parquet, one partition file per interval.
func (b *builder) backfillLake(ctx context.Context, st state.Store, info *analysis.ModelInfo, ranges []analysis.Range, opt backfillOptions) error {
	m := info.Model
	q, err := b.Query(info)
	if err != nil {
		return err
	}
	if err := b.checkContract(ctx, info, q); err != nil {
		return err
	}
	cols, err := b.columns(ctx, m, q)
	if err != nil {
		return err
	}
	if err := hasTimeColumn(m, cols); err != nil {
		return err
	}
	prefix := b.lakePrefix(m, b.physFP(info))
	glob := filepath.Join(prefix, "interval=*", "data.parquet")
	g := analysis.GrainOf(m)
	var ivs []analysis.Range
	for _, r := range ranges {
		ivs = append(ivs, g.Intervals(r)...)
	}
	committed, err := doneBefore(ctx, st, info.Fingerprint)
	if err != nil {
		return err
	}
	ie := &IntervalsError{Model: m.Name}
	for k, iv := range ivs {
		if err := ctx.Err(); err != nil {
			return err
		}
		bb := *b
		bb.interval = &iv
		iq, err := bb.Query(info)
		if err != nil {
			return err
		}
		start, end := b.d.TimestampLiteral(iv.Start.Format(time.RFC3339)), b.d.TimestampLiteral(iv.End.Format(time.RFC3339))
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = b.d.Quote(c.Name)
		}
		wq := "SELECT " + strings.Join(names, ", ") + " FROM (\n" + iq + "\n) AS _efmesh_interval WHERE " + engine.RangeCondition(m.Kind.TimeColumn, start, end)
		path := filepath.Join(prefix, "interval="+intervalKey(g, iv.Start), "data.parquet")
		mark := []state.Interval{{Start: iv.Start, End: iv.End}}
		// A failed write leaves the partition's file as it was (a done
		// interval stays done); a failed audit follows the new file's rename,
		// so the interval is failed whatever it was.
		kept := committed
		err = b.writeFile(ctx, wq, path, opt)
		if err == nil { // the partition's audits, before it counts as done
			kept = nil
			err = b.auditFile(ctx, info, path, iv, opt.log)
		}
		if err := settle(ctx, st, info.Fingerprint, mark, iv, err, ie, opt, kept); err != nil {
			return err
		}
		opt.report(m.Name, k+1, len(ivs), iv, err)
	}
	if err := b.lakeView(ctx, info, glob, cols); err != nil {
		return err
	}
	if len(ie.Failed) > 0 {
		return ie
	}
	return nil
}

// columns returns the declared columns, else what the engine says q yields.
func (b *builder) columns(ctx context.Context, m *project.Model, q string) ([]engine.Column, error) {
	if cols := analysis.Declared(m); cols != nil {
		return cols, nil
	}
	return b.wh.Describe(ctx, q)
}
