package planner

import (
	"context"
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// SourceColumns are the columns the engine infers for the source of the
// EXTERNAL model m, typed as the engine names them (the names a columns
// property takes). Files are described on the workbench, whose file
// reader infers their columns as a build reads them (the declared
// columns are not applied); a table is looked up in the catalog of wh,
// the warehouse opened for reading (nil when there is none yet), or, when
// it lives in another catalog (an attached database, a three-part name),
// described there. A source that is not there is the *ProblemsError a plan
// gives, positioned at the model's kind.
func SourceColumns(ctx context.Context, a *analysis.Analysis, wb analysis.Workbench, wh engine.Engine, m *project.Model) ([]engine.Column, error) {
	if m.Kind.Name != project.KindExternal {
		return nil, fmt.Errorf("%s is %s model, not an EXTERNAL one", m.Name, m.Kind.Name.WithArticle())
	}
	if m.Kind.Files != "" {
		return fileSourceColumns(ctx, a, wb, m)
	}
	if m.Kind.Table == "" {
		return nil, fmt.Errorf("EXTERNAL %s names no table nor files", m.Name)
	}
	missing := &ProblemsError{Diagnostics: []project.Diagnostic{missingSourceDiag(m)}}
	if wh == nil {
		return nil, missing
	}
	d := wh.Dialect()
	if e, ok := sourceExpectation(d, a.Project, m); ok {
		if cat, ok := wh.(engine.Catalog); ok {
			rels, err := cat.Relations(ctx, []string{e.rel.Schema}, []engine.Relation{catalogKey(d, e.rel)})
			if err != nil {
				return nil, err
			}
			for _, r := range rels {
				if catalogKey(d, r.Relation) == catalogKey(d, e.rel) {
					if len(r.Columns) == 0 {
						return nil, fmt.Errorf("EXTERNAL %s: the warehouse lists no column of %s", m.Name, m.Kind.Table)
					}
					return r.Columns, nil
				}
			}
			return nil, missing
		}
	}
	parts := strings.Split(m.Kind.Table, ".")
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = d.Quote(p)
	}
	cols, err := wh.Describe(ctx, "SELECT * FROM "+strings.Join(quoted, "."))
	if err != nil {
		return nil, &ProblemsError{Diagnostics: []project.Diagnostic{sourceDiag(m, m.Kind.Table, project.CodeUnknownTable,
			fmt.Sprintf("EXTERNAL %s reads table %s, which the warehouse cannot read: %s", m.Name, m.Kind.Table, analysis.FirstLine(analysis.ErrMessage(err))))}}
	}
	return cols, nil
}

// fileSourceColumns describes the files m reads on the workbench.
func fileSourceColumns(ctx context.Context, a *analysis.Analysis, wb analysis.Workbench, m *project.Model) ([]engine.Column, error) {
	glob := analysis.AbsPath(a.Project.Root, m.Kind.Files)
	if !strings.Contains(m.Kind.Files, "://") && !globMatches(glob) {
		return nil, &ProblemsError{Diagnostics: []project.Diagnostic{sourceDiag(m, m.Kind.Files, project.CodeFile,
			fmt.Sprintf("EXTERNAL %s reads files %s, but no file matches %s", m.Name, m.Kind.Files, m.Kind.Files))}}
	}
	fr, ok := wb.(engine.FileReader)
	eng, isEng := wb.(engine.Engine)
	if !ok || !isEng {
		return nil, &engine.FeatureError{Engine: wb.Dialect().Name(), Feature: "reading files (" + m.Name + ")"}
	}
	q, err := fr.ReadFiles(engine.FileSpec{Paths: []string{glob}, Format: m.Kind.Format, Options: analysis.FileOptions(m.Kind.Options)})
	if err != nil {
		return nil, &ProblemsError{Diagnostics: []project.Diagnostic{sourceDiag(m, m.Kind.Files, project.CodeBadValue, err.Error())}}
	}
	cols, err := eng.Describe(ctx, q)
	if err != nil {
		return nil, &ProblemsError{Diagnostics: []project.Diagnostic{sourceDiag(m, m.Kind.Files, project.CodeFile,
			"cannot read "+m.Kind.Files+": "+analysis.FirstLine(analysis.ErrMessage(err)))}}
	}
	return cols, nil
}
