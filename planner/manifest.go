package planner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// ManifestFile is the name of the manifest beside a parquet version's files.
const ManifestFile = "manifest.json"

// ManifestVersion is the version of the manifest's shape; additive changes
// keep it.
const ManifestVersion = 1

// Manifest is the document written beside every parquet version
// (<lake>/<schema>/<table>/fp=<fp8>/manifest.json): a client reads the
// model with one fetch and no directory listing. Files are relative to the
// manifest's folder and are exactly the partitions the ledger holds as
// done: a failed or missing interval's file is never listed.
type Manifest struct {
	ManifestVersion int               `json:"manifestVersion"`
	Model           string            `json:"model"`
	Fingerprint     string            `json:"fingerprint"`
	Files           []string          `json:"files"`
	Schema          []ManifestColumn  `json:"schema"`
	Intervals       []ManifestRange   `json:"intervals"`
	Answerable      string            `json:"answerable"`
	Caveats         []string          `json:"caveats"`
	Freshness       *Freshness        `json:"freshness"`
	Effective       EffectivePassport `json:"effective"`
	// Redacted lists the columns this version was written without (a
	// redacted environment's physics).
	Redacted  []string  `json:"redacted"`
	WrittenAt time.Time `json:"writtenAt"`
}

// ManifestColumn is one column of the files, as the engine types it.
type ManifestColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// ManifestRange is one run of done intervals.
type ManifestRange struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// writeManifest writes the manifest of a parquet model's version after its
// files changed, through a temporary file and a rename, so a reader sees
// the old manifest or the new one, never a partial one.
func (b *builder) writeManifest(ctx context.Context, st state.Reader, info *analysis.ModelInfo) error {
	m := info.Model
	prefix := b.lakePrefix(m, b.physFP(info))
	pp, err := analysisPassport(ctx, b.a, st, m.Name)
	if err != nil {
		return err
	}
	mf := Manifest{ManifestVersion: ManifestVersion, Model: m.Name, Fingerprint: info.Fingerprint, Files: []string{},
		Schema: []ManifestColumn{}, Intervals: []ManifestRange{}, Answerable: pp.Answerable, Caveats: pp.Caveats,
		Freshness: pp.Freshness, Effective: pp.Effective, Redacted: b.a.RedactedColumns()[m.Name], WrittenAt: b.now.UTC()}
	if mf.Redacted == nil {
		mf.Redacted = []string{}
	}
	if m.Kind.Name == project.KindIncrementalByTimeRange {
		ivs, err := st.Intervals(ctx, info.Fingerprint)
		if err != nil {
			return err
		}
		g := analysis.GrainOf(m)
		var done []analysis.Range
		for _, iv := range ivs {
			if iv.Status != state.IntervalDone {
				continue
			}
			for _, one := range g.Intervals(analysis.Range{Start: iv.Start.UTC(), End: iv.End.UTC()}) {
				rel := "interval=" + intervalKey(g, one.Start) + "/data.parquet"
				if _, err := os.Stat(filepath.Join(prefix, filepath.FromSlash(rel))); err != nil {
					continue // done in an inherited ledger but written under no file here
				}
				mf.Files = append(mf.Files, "./"+rel)
				done = append(done, one)
			}
		}
		for _, r := range analysis.MergeRanges(done) {
			mf.Intervals = append(mf.Intervals, ManifestRange(r))
		}
	} else if _, err := os.Stat(filepath.Join(prefix, "data.parquet")); err == nil {
		mf.Files = append(mf.Files, "./data.parquet")
	}
	cols, err := b.wh.Describe(ctx, "SELECT * FROM "+b.d.QuoteRelation(analysis.PhysicalRelation(b.d, m, b.physFP(info))))
	if err != nil {
		return err
	}
	for _, c := range cols {
		mf.Schema = append(mf.Schema, ManifestColumn{Name: c.Name, Type: c.Type})
	}
	data, err := json.MarshalIndent(mf, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return err
	}
	path := filepath.Join(prefix, ManifestFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
