package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
)

// ExternalColumns is what CreateExternal did (or, dry, would do) to one
// EXTERNAL model's header.
type ExternalColumns struct {
	Model string `json:"model"`
	File  string `json:"file"`
	// Columns are what the engine infers for the source, now declared.
	Columns []engine.Column `json:"columns"`
	// Previous are the columns declared before; nil when none were.
	Previous []engine.Column `json:"previous"`
	// Changed is false when the header already declared exactly Columns:
	// the file is left as it is.
	Changed bool `json:"changed"`
	// Header is the model's MODEL (…) header as it now reads.
	Header string `json:"header"`
}

// CreateExternal writes into the columns property of each named EXTERNAL
// model (every EXTERNAL model when names is empty) the columns the engine
// infers for its source (planner.SourceColumns): files described on the
// workbench, tables read from the warehouse's catalog, opened read-only.
// The rest of each file is kept byte for byte (project.WithColumns).
// Every model is looked at before any file is written: a missing source
// anywhere writes nothing and returns the plan's positioned errors. dry
// writes nothing at all.
func (w *Workspace) CreateExternal(ctx context.Context, names []string, dry bool) ([]ExternalColumns, error) {
	var models []*project.Model
	if len(names) == 0 {
		for _, m := range w.Project.Models {
			if m.Kind.Name == project.KindExternal {
				models = append(models, m)
			}
		}
		if len(models) == 0 {
			return nil, errors.New("the project has no EXTERNAL model")
		}
	}
	for _, n := range names {
		info := w.Analysis.Models[n]
		if info == nil {
			return nil, fmt.Errorf("unknown model %q%s", n, analysis.DidYouMean(n, w.Analysis.Models))
		}
		if info.Model.Kind.Name != project.KindExternal {
			return nil, fmt.Errorf("%s is %s model: only an EXTERNAL model reads a source whose columns can be written", n, info.Model.Kind.Name.WithArticle())
		}
		models = append(models, w.Project.ByName[n])
	}
	wb, err := w.workbench()
	if err != nil {
		return nil, err
	}
	var wh engine.Engine
	for _, m := range models {
		if m.Kind.Files == "" {
			if wh, err = connect.ReadWarehouse(ctx, w.Project, w.opts.Warehouse...); err != nil {
				return nil, err
			}
			if wh != nil {
				defer wh.Close()
			}
			break
		}
	}
	var (
		out   []ExternalColumns
		srcs  [][]byte
		diags []project.Diagnostic
	)
	for _, m := range models {
		cols, err := planner.SourceColumns(ctx, w.Analysis, wb, wh, m)
		if err != nil {
			var pe *planner.ProblemsError
			if errors.As(err, &pe) {
				diags = append(diags, pe.Diagnostics...)
				continue
			}
			return nil, err
		}
		decl := make([]project.Column, len(cols))
		for i, c := range cols {
			decl[i] = project.Column{Name: c.Name, Type: c.Type}
		}
		src, err := project.WithColumns(m, decl)
		if err != nil {
			return nil, err
		}
		r := ExternalColumns{Model: m.Name, File: m.File, Columns: cols, Previous: analysis.Declared(m), Changed: !sameColumns(m.Columns, cols)}
		if !r.Changed {
			src = m.Source
		}
		nm, _ := project.ParseModel(m.File, src)
		r.Header = string(src[nm.Header.Start.Offset:nm.Header.End.Offset])
		out = append(out, r)
		srcs = append(srcs, src)
	}
	if len(diags) > 0 {
		project.SortDiagnostics(diags)
		return nil, &planner.ProblemsError{Diagnostics: diags}
	}
	if dry {
		return out, nil
	}
	for i, r := range out {
		if !r.Changed {
			continue
		}
		path := filepath.Join(w.Project.Root, filepath.FromSlash(r.File))
		mode := os.FileMode(0o644)
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
		if err := os.WriteFile(path, srcs[i], mode); err != nil {
			return out[:i], err
		}
	}
	return out, nil
}

// sameColumns reports whether decl declares exactly cols, in order (names
// without case, types without case or spaces).
func sameColumns(decl []project.Column, cols []engine.Column) bool {
	if decl == nil || len(decl) != len(cols) {
		return false
	}
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "")) }
	for i, d := range decl {
		if !strings.EqualFold(d.Name, cols[i].Name) || norm(d.Type) != norm(cols[i].Type) {
			return false
		}
	}
	return true
}
