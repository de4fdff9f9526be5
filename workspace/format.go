package workspace

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/format"
	"github.com/efmesh/efmesh/project"
)

// FormattedFile is what formatting did, or would do, to one model or audit
// file.
type FormattedFile struct {
	File    string `json:"file"`            // slash path relative to the project root
	Model   string `json:"model,omitempty"` // a model file's model
	Audit   string `json:"audit,omitempty"` // an audit file's audit
	Changed bool   `json:"changed"`         // the canonical layout differs from the file
	Written bool   `json:"written"`
	// Problem says why the file was left alone: the layout would change
	// the model's fingerprint (the audit's query), or the file does not
	// load or parse.
	Problem string `json:"problem,omitempty"`
	// Skipped says why a file named by a path is not formatted at all (a
	// unit-test file, a macro file, a file that is no model or audit of the
	// project).
	Skipped string `json:"skipped,omitempty"`
	// Formatted is the canonical text (nil when there is a problem).
	Formatted []byte `json:"-"`
}

// Format lays out the model and audit files of the project holding dir
// that lie in paths (files or folders; all of them when empty) in format's
// canonical layout. It never writes a file whose model fingerprint (or
// audit query) would change: LayoutProblems checks every changed file on
// one workbench, each by its own text alone, and a refused file comes back
// with a Problem. A model is formatted as written (its macro calls, not
// their expansion) and checked on its expansion. A path naming a file
// that is not formatted (a unit-test file, a macro file, or no project
// file) comes back Skipped. With write false nothing is written (--check).
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
	var out []FormattedFile
	for _, x := range paths {
		a, err := filepath.Abs(x)
		if err != nil {
			return nil, fmt.Errorf("workspace: format %s: %w", x, err)
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("format: %s: no such file or folder", x)
		}
		abs = append(abs, a)
		if st.IsDir() {
			continue
		}
		rel, err := filepath.Rel(root, a)
		if err != nil || !filepath.IsLocal(rel) {
			out = append(out, FormattedFile{File: filepath.ToSlash(x), Skipped: "not a file of the project"})
			continue
		}
		rel = filepath.ToSlash(rel)
		switch p.Config.KindOf(rel) {
		case project.TestFile:
			out = append(out, FormattedFile{File: rel, Skipped: "unit-test files are not formatted (model and audit files are)"})
		case project.MacroFile:
			out = append(out, FormattedFile{File: rel, Skipped: "macro files are not formatted (model and audit files are)"})
		case project.NotProjectFile:
			out = append(out, FormattedFile{File: rel, Skipped: "not a model or audit file of the project (efmesh.yaml's models and audits globs)"})
		}
	}
	broken := map[string]bool{}
	for _, d := range p.Diagnostics {
		if d.Severity == project.SeverityError {
			broken[d.File] = true
		}
	}
	after := map[string][]byte{}
	add := func(f FormattedFile, src []byte) {
		switch got, err := format.Source(src); {
		case broken[f.File]:
			f.Problem = "the file has errors; fix them first"
		case err != nil:
			f.Problem = err.Error()
		case !bytes.Equal(got, src):
			f.Changed, f.Formatted = true, got
			after[f.File] = got
		}
		out = append(out, f)
	}
	in := func(rel string) bool {
		return within(filepath.Join(root, filepath.FromSlash(rel)), abs)
	}
	for _, m := range p.Models {
		if in(m.File) {
			// The file as written: a body that calls macros keeps its calls.
			add(FormattedFile{File: m.File, Model: m.Name}, m.Written())
		}
	}
	for _, a := range p.Audits {
		if in(a.File) {
			add(FormattedFile{File: a.File, Audit: a.Name}, a.Source)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].File < out[j].File })
	if len(after) == 0 {
		return out, nil
	}
	wb, err := connect.Workbench(p)
	if err != nil {
		return nil, err
	}
	defer wb.Close()
	problems := LayoutProblems(p, wb, after)
	for i := range out {
		f := &out[i]
		if !f.Changed {
			continue
		}
		if pr := problems[f.File]; pr != "" {
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

// LayoutProblems says, for each file of p in after (slash path relative to
// the root → a new text of it: a model or an audit file laid out anew),
// why the new text may not be written: its model's fingerprint (its
// audit's query) cannot be computed, or would change. A file missing from
// the result may be written.
//
// A fingerprint is the model's own hash combined with its parents'
// fingerprints, so a text that keeps the model's own hash keeps its
// fingerprint and its children's, whatever else is written. The own hash
// of each text is computed from that text alone (analysis.OwnHashes: one
// parse by wb's engine, rendered as the analysis renders it), so the check
// costs what the changed files cost, not an analysis of the project. An
// audit keeps its name, blocking, description and the canonical form of
// its query (analysis.AuditIdentities).
func LayoutProblems(p *project.Project, wb analysis.Workbench, after map[string][]byte) map[string]string {
	out := map[string]string{}
	var before, now []*project.Model
	var files []string
	var abefore, anow []*project.CustomAudit
	var afiles []string
	byFile := make(map[string]*project.Model, len(p.Models))
	for _, m := range p.Models {
		byFile[m.File] = m
	}
	for _, rel := range slices.Sorted(maps.Keys(after)) {
		if m := byFile[rel]; m != nil {
			n, _ := project.ParseModel(m.File, after[rel])
			// The new text's macros expanded as the project's are: the
			// fingerprint covers the expansion.
			n, _ = p.Expand(n)
			before, now, files = append(before, m), append(now, n), append(files, rel)
			continue
		}
		if i := slices.IndexFunc(p.Audits, func(a *project.CustomAudit) bool { return a.File == rel }); i >= 0 {
			n, _ := project.ParseAudit(rel, after[rel])
			abefore, anow, afiles = append(abefore, p.Audits[i]), append(anow, n), append(afiles, rel)
			continue
		}
		out[rel] = "not a model or audit file of the project"
	}
	if len(before) > 0 {
		hashes, errs := analysis.OwnHashes(p, append(slices.Clone(before), now...), wb)
		k := len(before)
		for i, rel := range files {
			b, a := before[i], now[i]
			switch {
			case errs[i] != nil:
				out[rel] = "the model has errors, so its fingerprint cannot be checked; fix them first: " + errs[i].Error()
			case errs[k+i] != nil || hashes[k+i] != hashes[i] || a.Name != b.Name || !slices.Equal(a.Redact, b.Redact):
				out[rel] = "the layout would change the model's fingerprint; left as it is"
			}
		}
	}
	if len(abefore) > 0 {
		ids, errs := analysis.AuditIdentities(p, append(slices.Clone(abefore), anow...), wb)
		k := len(abefore)
		for i, rel := range afiles {
			switch {
			case errs[i] != nil:
				out[rel] = "the audit's query does not parse, so the layout cannot be checked; fix it first"
			case errs[k+i] != nil || ids[k+i] != ids[i]:
				out[rel] = "the layout would change the audit; left as it is"
			}
		}
	}
	return out
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
