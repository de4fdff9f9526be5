package planner

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// An EXTERNAL model reads what efmesh does not make: a table of the
// warehouse or files. Neither changes the model's fingerprint when it
// appears or goes, so neither is checked with the model (the check cache
// would remember a stale answer): each plan looks — the table in the one
// catalog query of the warehouse check (checkWarehouse), the files with a
// glob — and a source that is not there is an error at the model's kind,
// never a failed build halfway through an apply.

// sourceExpectation is the relation the EXTERNAL model m reads, when the
// warehouse's catalog can tell whether it exists: a two-part name whose
// schema is not an attached catalog (efmesh.yaml attach:) nor a system
// schema of the engine d phrases statements for. A three-part name reads
// another catalog, which is not looked at.
func sourceExpectation(d engine.Dialect, p *project.Project, m *project.Model) (expectation, bool) {
	if m.Kind.Name != project.KindExternal || m.Kind.Table == "" {
		return expectation{}, false
	}
	parts := strings.Split(m.Kind.Table, ".")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return expectation{}, false
	}
	schema := strings.ToLower(parts[0])
	if engine.CapabilitiesOf(d).SystemSchema(schema) {
		return expectation{}, false
	}
	for name := range p.Config.Attach {
		if strings.EqualFold(name, schema) {
			return expectation{}, false
		}
	}
	return expectation{model: m.Name, rel: engine.Relation{Schema: parts[0], Name: parts[1]}, columns: len(m.Columns) > 0}, true
}

// sourceDiag is an error on arg where the kind property of m spells it,
// else on the property.
func sourceDiag(m *project.Model, arg, code, msg string) project.Diagnostic {
	start, end := m.Header.Start.Offset, m.Header.Start.Offset
	if p, ok := m.Property("kind"); ok {
		start, end = p.Range.Start.Offset, p.Range.End.Offset
		vs, ve := p.ValueRange.Start.Offset, p.ValueRange.End.Offset
		if i := strings.Index(strings.ToLower(string(m.Source[vs:ve])), strings.ToLower(arg)); i >= 0 && arg != "" {
			start, end = vs+i, vs+i+len(arg)
		}
	}
	return m.MapDiagnostic(m.Diagnostic(start, end, project.SeverityError, code, msg))
}

// missingSourceDiag reports the table of an EXTERNAL model the warehouse
// does not have.
func missingSourceDiag(m *project.Model) project.Diagnostic {
	return sourceDiag(m, m.Kind.Table, project.CodeUnknownTable,
		fmt.Sprintf("EXTERNAL %s reads table %s, which the warehouse does not have", m.Name, m.Kind.Table))
}

// sourceColumnDiags compares the columns the EXTERNAL model m declares
// with has, the columns of the table it reads as the catalog lists them
// (names without case): a declared column the table lacks is an error at
// the declaration, or one error at the table name when several are
// lacking. Types are not compared: consumers read the table with the
// declared columns cast to their declared types, so a column stored as
// text is read as the number it is declared (whether each value casts
// is the data's business, not the catalog's). Columns the table has
// beyond those declared are not read and do not matter.
func sourceColumnDiags(m *project.Model, has []engine.Column) []project.Diagnostic {
	present := make(map[string]bool, len(has))
	names := make([]string, len(has))
	for i, c := range has {
		present[strings.ToLower(c.Name)] = true
		names[i] = c.Name
	}
	var lacking []project.Column
	for _, d := range m.Columns {
		if !present[strings.ToLower(d.Name)] {
			lacking = append(lacking, d)
		}
	}
	if len(lacking) == 0 {
		return nil
	}
	it := "it has " + strings.Join(names, ", ")
	if len(has) == 0 {
		it = "it has no columns"
	}
	if len(lacking) == 1 {
		d := lacking[0]
		return []project.Diagnostic{mapped(m, d.Range.Start.Offset, d.Range.End.Offset, project.SeverityError, project.CodeContract,
			fmt.Sprintf("EXTERNAL %s declares column %s, which table %s does not have (%s)", m.Name, d.Name, m.Kind.Table, it))}
	}
	ns := make([]string, len(lacking))
	for i, d := range lacking {
		ns[i] = d.Name
	}
	return []project.Diagnostic{sourceDiag(m, m.Kind.Table, project.CodeContract,
		fmt.Sprintf("EXTERNAL %s declares columns %s, which table %s does not have (%s)", m.Name, strings.Join(ns, ", "), m.Kind.Table, it))}
}

// checkSourceFiles reports the file EXTERNAL models of the plan whose
// local glob matches no file (a URL is not looked at), and, when rd can
// read files, those whose files lack a declared column (fileShapeDiags).
func (p *Plan) checkSourceFiles(ctx context.Context, rd any) []project.Diagnostic {
	a := p.analysis
	var out []project.Diagnostic
	for _, mp := range p.Models {
		info := a.Models[mp.Name]
		if mp.Change == Removed || info == nil {
			continue
		}
		m := info.Model
		if m.Kind.Name != project.KindExternal || m.Kind.Files == "" || strings.Contains(m.Kind.Files, "://") {
			continue
		}
		if !globMatches(analysis.AbsPath(a.Project.Root, m.Kind.Files)) {
			out = append(out, sourceDiag(m, m.Kind.Files, project.CodeFile,
				fmt.Sprintf("EXTERNAL %s reads files %s, but no file matches %s", m.Name, m.Kind.Files, m.Kind.Files)))
			continue
		}
		out = append(out, fileShapeDiags(ctx, rd, a.Project.Root, m)...)
	}
	return out
}

// A file is not a table: nothing tells efmesh that a parquet file was
// replaced by one whose column is renamed, or that a CSV header lost a
// column, and the fingerprint of the EXTERNAL model does not move. So
// plan, run and status --check describe the files (DuckDB reads only the
// parquet footer, the CSV header and a sample) and compare their column
// names with the declared ones — by name, as the reader binds them —
// before anything is computed from them. Types are not compared: the
// reader casts each column to its declared type.

// fileColumns names the columns of the files of an EXTERNAL kind under
// root on rd, a FileReader engine — from what names them, remembered by
// the files' stamps, when rd is an engine.FileDescriber; ok is false when
// rd cannot read files.
func fileColumns(ctx context.Context, rd any, root string, kind project.Kind) (names []string, ok bool, err error) {
	fr, isFR := rd.(engine.FileReader)
	eng, isEng := rd.(engine.Engine)
	if !isFR || !isEng || eng == nil {
		return nil, false, nil
	}
	spec := engine.FileSpec{Paths: []string{analysis.AbsPath(root, kind.Files)}, Format: kind.Format, Options: analysis.FileOptions(kind.Options)}
	if fd, isFD := rd.(engine.FileDescriber); isFD {
		names, err = fd.FileColumnNames(ctx, spec)
		return names, true, err
	}
	q, err := fr.ReadFiles(spec)
	if err != nil {
		return nil, true, err
	}
	cols, err := eng.Describe(ctx, q)
	if err != nil {
		return nil, true, err
	}
	names = make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return names, true, nil
}

// lackingColumns names the columns of want that has lacks (names without
// case), and the message saying so: "data/*.parquet has no column name
// (it has full_name)" — the columns the files have beyond want, or all
// of them when there is none beyond.
func lackingColumns(files string, want []string, has []string) ([]string, string) {
	present := make(map[string]bool, len(has))
	for _, c := range has {
		present[strings.ToLower(c)] = true
	}
	wanted := make(map[string]bool, len(want))
	var lacking []string
	for _, w := range want {
		wanted[strings.ToLower(w)] = true
		if !present[strings.ToLower(w)] {
			lacking = append(lacking, w)
		}
	}
	if len(lacking) == 0 {
		return nil, ""
	}
	var extra, all []string
	for _, c := range has {
		all = append(all, c)
		if !wanted[strings.ToLower(c)] {
			extra = append(extra, c)
		}
	}
	it := "it has " + strings.Join(extra, ", ")
	switch {
	case len(has) == 0:
		it = "it has no columns"
	case len(extra) == 0:
		it = "it has " + strings.Join(all, ", ")
	}
	what := "column " + lacking[0]
	if len(lacking) > 1 {
		what = "columns " + strings.Join(lacking, ", ")
	}
	return lacking, fmt.Sprintf("%s has no %s (%s)", files, what, it)
}

// fileShapeDiags describes the files the EXTERNAL model m reads on rd and
// reports the declared columns they lack: one error at the declaration
// when one is lacking, at the columns property when several are. Files
// that cannot be read are an error at the glob. A model that declares no
// columns is bound by the check to what the files have now: its
// consumers' binding says what is wrong.
func fileShapeDiags(ctx context.Context, rd any, root string, m *project.Model) []project.Diagnostic {
	if len(m.Columns) == 0 {
		return nil
	}
	has, ok, err := fileColumns(ctx, rd, root, m.Kind)
	if !ok {
		return nil
	}
	if err != nil {
		return []project.Diagnostic{sourceDiag(m, m.Kind.Files, project.CodeFile,
			"cannot read "+m.Kind.Files+": "+analysis.FirstLine(analysis.ErrMessage(err)))}
	}
	want := make([]string, len(m.Columns))
	for i, c := range m.Columns {
		want[i] = c.Name
	}
	lacking, msg := lackingColumns(m.Kind.Files, want, has)
	if len(lacking) == 0 {
		return nil
	}
	msg = "EXTERNAL " + m.Name + ": " + msg
	if len(lacking) == 1 {
		for _, d := range m.Columns {
			if strings.EqualFold(d.Name, lacking[0]) {
				return []project.Diagnostic{mapped(m, d.Range.Start.Offset, d.Range.End.Offset, project.SeverityError, project.CodeContract, msg)}
			}
		}
	}
	start, end := m.Header.Start.Offset, m.Header.Start.Offset
	if p, ok := m.Property("columns"); ok {
		start, end = p.Range.Start.Offset, p.Range.End.Offset
	}
	return []project.Diagnostic{mapped(m, start, end, project.SeverityError, project.CodeContract, msg)}
}

// globMatches reports whether the file glob pattern (an absolute path) matches
// at least one file, as the engine's file readers glob: a "**" segment
// matches any number of folders, other segments follow path.Match (the
// project's glob rules, project.MatchGlob).
func globMatches(pattern string) bool {
	pattern = filepath.ToSlash(pattern)
	segs := strings.Split(pattern, "/")
	literal := 0
	for literal < len(segs) && !strings.ContainsAny(segs[literal], `*?[\`) {
		literal++
	}
	if literal == len(segs) {
		st, err := os.Stat(filepath.FromSlash(pattern))
		return err == nil && !st.IsDir()
	}
	base := strings.Join(segs[:literal], "/")
	if base == "" {
		base = "/"
	}
	rest := segs[literal:]
	deep := false
	for _, s := range rest {
		deep = deep || s == "**"
	}
	found := false
	_ = filepath.WalkDir(filepath.FromSlash(base), func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		rel, rerr := filepath.Rel(filepath.FromSlash(base), name)
		if rerr != nil || rel == "." {
			return nil
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if d.IsDir() {
			if !deep && len(parts) >= len(rest) {
				return fs.SkipDir
			}
			return nil
		}
		if project.MatchGlob(strings.Join(rest, "/"), strings.Join(parts, "/")) {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// mapped is m.Diagnostic moved to m's file as written.
func mapped(m *project.Model, start, end int, sev project.Severity, code, msg string) project.Diagnostic {
	return m.MapDiagnostic(m.Diagnostic(start, end, sev, code, msg))
}
