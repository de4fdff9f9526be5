package workspace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/format"
	"github.com/efmesh/efmesh/project"
)

// FormattedFile is what formatting did, or would do, to one model file.
type FormattedFile struct {
	File    string `json:"file"` // slash path relative to the project root
	Model   string `json:"model"`
	Changed bool   `json:"changed"` // the canonical layout differs from the file
	Written bool   `json:"written"`
	// Problem says why the file was left alone: the layout would change
	// the model's fingerprint, or the model does not load or check.
	Problem string `json:"problem,omitempty"`
	// Formatted is the canonical text (nil when there is a problem).
	Formatted []byte `json:"-"`
}

// Format lays out the model files of the project holding dir that lie in
// paths (files or folders; all models when empty) in format's canonical
// layout. It computes every model's fingerprint before and after, through
// the same analysis a plan makes, and never writes a file whose
// fingerprint would change: that file comes back with a Problem. With
// write false nothing is written (--check).
func Format(ctx context.Context, dir string, paths []string, write bool) ([]FormattedFile, error) {
	root, err := project.FindRoot(dir)
	if err != nil {
		return nil, err
	}
	p, err := Load(root, nil)
	if err != nil {
		return nil, err
	}
	var abs []string
	for _, x := range paths {
		a, err := filepath.Abs(x)
		if err != nil {
			return nil, fmt.Errorf("workspace: format %s: %w", x, err)
		}
		if _, err := os.Stat(a); err != nil {
			return nil, fmt.Errorf("format: %s: no such file or folder", x)
		}
		abs = append(abs, a)
	}
	broken := map[string]bool{}
	for _, d := range p.Diagnostics {
		if d.Severity == project.SeverityError {
			broken[d.File] = true
		}
	}
	var out []FormattedFile
	overlay := map[string][]byte{}
	for _, m := range p.Models {
		path := filepath.Join(root, filepath.FromSlash(m.File))
		if !within(path, abs) {
			continue
		}
		f := FormattedFile{File: m.File, Model: m.Name}
		switch got, err := format.Source(m.Source); {
		case broken[m.File]:
			f.Problem = "the model has errors; fix them first"
		case err != nil:
			f.Problem = err.Error()
		case !bytes.Equal(got, m.Source):
			f.Changed, f.Formatted = true, got
			overlay[path] = got
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	if len(overlay) == 0 {
		return out, nil
	}
	q, err := Load(root, overlay)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range out {
		if f.Changed {
			names = append(names, f.Model)
		}
	}
	problems, err := LayoutProblems(ctx, p, q, names)
	if err != nil {
		return nil, err
	}
	for i := range out {
		f := &out[i]
		if !f.Changed {
			continue
		}
		if pr := problems[f.Model]; pr != "" {
			f.Problem, f.Formatted = pr, nil
			continue
		}
		if write {
			path := filepath.Join(root, filepath.FromSlash(f.File))
			mode := os.FileMode(0o644)
			if st, err := os.Stat(path); err == nil {
				mode = st.Mode().Perm()
			}
			if err := os.WriteFile(path, f.Formatted, mode); err != nil {
				return out, fmt.Errorf("workspace: format: %w", err)
			}
			f.Written = true
		}
	}
	return out, nil
}

// LayoutProblems says, for each of the named models, why its file in after
// (the same project as before with some files laid out anew) may not be
// written: its fingerprint cannot be computed, or would change. Both are
// computed by the analysis a plan makes, each on a fresh workbench, through
// the project's check cache. A model missing from the
// result may be written. A fingerprint is the own hash combined with the
// parents' fingerprints, so a file whose own hash stays keeps its
// fingerprint and its children's, whatever else is written.
func LayoutProblems(ctx context.Context, before, after *project.Project, models []string) (map[string]string, error) {
	out := map[string]string{}
	if len(models) == 0 {
		return out, nil
	}
	// One cache for both: the two texts differ in a few files only, so the
	// second analysis checks just those. It is saved (atomically, as every
	// analysis saves it) so that the next format starts warm.
	cache := analysis.OpenFileCache(connect.CachePath(before))
	b, err := ownHashes(ctx, before, cache)
	if err != nil {
		return nil, err
	}
	a, err := ownHashes(ctx, after, cache)
	if err != nil {
		return nil, err
	}
	_ = cache.Save() // a cache that cannot be saved only costs time
	for _, m := range models {
		switch {
		case b[m] == "":
			out[m] = "the model does not parse, so its fingerprint cannot be checked; fix it first"
		case a[m] != b[m]:
			out[m] = "the layout would change the model's fingerprint; left as it is"
		}
	}
	return out, nil
}

// ownHashes analyzes p on a fresh workbench and returns each model's own
// hash and canonical form, keyed by model name.
func ownHashes(ctx context.Context, p *project.Project, cache *analysis.FileCache) (map[string]string, error) {
	wb, err := connect.Workbench(p)
	if err != nil {
		return nil, err
	}
	defer wb.Close()
	a, err := analysis.AnalyzeWith(ctx, p, wb, analysis.AnalyzeOptions{Cache: cache})
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(a.Models))
	for name, info := range a.Models {
		if info.OwnHash == "" && len(info.Canonical) == 0 {
			continue
		}
		out[name] = info.OwnHash + "/" + string(info.Canonical)
	}
	return out, nil
}

// within reports whether path is one of roots or inside one; every path
// is within no roots.
func within(path string, roots []string) bool {
	if len(roots) == 0 {
		return true
	}
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
