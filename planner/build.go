package planner

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// build creates the physical relation of one snapshot.
// A table's whole-relation audits run inside the transaction that fills it
// (writeAudited); a view is audited after (auditBuilt).
func (b *builder) build(ctx context.Context, info *analysis.ModelInfo, log *slog.Logger) error {
	m := info.Model
	rel := analysis.PhysicalRelation(b.d, m, b.physFP(info))
	q, err := b.Query(info)
	if err != nil {
		return err
	}
	switch m.Kind.Name {
	case project.KindView:
		if err := b.checkContract(ctx, info, q); err != nil {
			return err
		}
		stmt := b.d.ReplaceView(rel, b.typed(info, q))
		if _, ok := b.rebuild[m.Name]; ok { // replaced by hand: dropped first, in one transaction
			return b.wh.Tx(ctx, b.aroundRebuild(m, rel, []string{stmt}))
		}
		return b.wh.Exec(ctx, stmt)
	case project.KindFull, project.KindSeed:
		// The contract's families are checked on the query (unless the
		// checker already proved them against the parents' real types);
		// the table then gets exactly the declared types.
		if m.Kind.Name == project.KindFull && !b.provenContract(info) {
			if err := b.checkContract(ctx, info, q); err != nil {
				return err
			}
		}
		stmts := b.aroundRebuild(m, rel, b.d.ReplaceTableAs(rel, b.typed(info, q)))
		return b.writeAudited(ctx, m, stmts, b.wholeAudits(m), b.d.QuoteRelation(rel), nil, log)
	}
	return &engine.FeatureError{Engine: b.d.Name(), Feature: fmt.Sprintf("building %s models", m.Kind.Name)}
}

// typed casts each column of q to its declared type, so the relation built
// from it has exactly the contract's types (SUM of an integer is HUGEINT in
// DuckDB, NUMERIC in PostgreSQL; a column declared BIGINT stays BIGINT).
// The contract check has vouched for the families, so a cast only changes
// the width or precision. A model without columns keeps q as is, and so
// does one whose proven query already yields exactly the declared types.
func (b *builder) typed(info *analysis.ModelInfo, q string) string {
	m := info.Model
	if m.Columns == nil || m.Kind.Name == project.KindExternal || m.Kind.Name == project.KindSeed {
		return q // externals and seeds are read with their declared types
	}
	if len(info.Inferred) == len(m.Columns) && b.provenContract(info) {
		same := true
		for i, c := range m.Columns {
			g := info.Inferred[i]
			same = same && engine.SameIdent(b.d, c.Name, g.Name) && b.sameType(c.Type, g.Type)
		}
		if same {
			return q
		}
	}
	sel := make([]string, len(m.Columns))
	for i, c := range m.Columns {
		n := b.d.Quote(c.Name)
		sel[i] = "CAST(" + n + " AS " + c.Type + ") AS " + n
	}
	return "SELECT " + strings.Join(sel, ", ") + " FROM (\n" + q + "\n) AS _efmesh_typed"
}

// refill replaces the rows of a built FULL table with what its query
// yields now, in one engine transaction (DELETE, then INSERT): readers see
// the old rows until the commit, never a half table, and the table the
// environments' views read stays in place (PostgreSQL refuses to drop a
// table a view depends on). The insert casts to the table's types.
// The refill and the audits of the whole table are one transaction: a
// blocking violation rolls it back, and the old rows stay.
func (b *builder) refill(ctx context.Context, info *analysis.ModelInfo, log *slog.Logger) error {
	m := info.Model
	q, err := b.Query(info)
	if err != nil {
		return err
	}
	if !b.provenContract(info) {
		if err := b.checkContract(ctx, info, q); err != nil {
			return err
		}
	}
	rel := analysis.PhysicalRelation(b.d, m, b.physFP(info))
	cols := analysis.Declared(m)
	if cols == nil {
		if cols, err = b.wh.Describe(ctx, "SELECT * FROM "+b.d.QuoteRelation(rel)); err != nil {
			return err
		}
	}
	return b.writeAudited(ctx, m, b.d.ReplaceRows(rel, namesOf(cols), q), b.wholeAudits(m), b.d.QuoteRelation(rel), nil, log)
}

// Query renders the query that computes a model's data in the warehouse:
// refs resolve to the parents' physical relations, embedded models inline.
// In a redacted environment's plan it leaves out the redacted columns.
func (b *builder) Query(info *analysis.ModelInfo) (string, error) {
	if len(b.a.RedactedColumns()[info.Model.Name]) == 0 {
		return b.query(info)
	}
	q, err := b.query(info.WithModel(b.a.Project.ByName[info.Model.Name]))
	if err != nil {
		return "", err
	}
	return b.redactQuery(info, q)
}

func (b *builder) query(info *analysis.ModelInfo) (string, error) {
	m := info.Model
	switch m.Kind.Name {
	case project.KindSeed:
		return b.readFiles(m, []string{m.Kind.Path}, analysis.SeedFormat(m.Kind.Path), nil)
	case project.KindExternal:
		if m.Kind.Files != "" {
			return b.readFiles(m, []string{m.Kind.Files}, m.Kind.Format, m.Kind.Options)
		}
		s, t := analysis.SplitName(m.Kind.Table)
		src := b.d.QuoteRelation(engine.Relation{Schema: s, Name: t})
		if m.Columns == nil {
			return "SELECT * FROM " + src, nil
		}
		sel := make([]string, len(m.Columns))
		for i, c := range m.Columns {
			sel[i] = "CAST(" + b.d.Quote(c.Name) + " AS " + c.Type + ") AS " + b.d.Quote(c.Name)
		}
		return "SELECT " + strings.Join(sel, ", ") + " FROM " + src, nil
	}
	r, err := b.render(info, map[string]bool{})
	if err != nil {
		return "", err
	}
	return r.SQL, nil
}

func (b *builder) render(info *analysis.ModelInfo, seen map[string]bool) (engine.Rendered, error) {
	m := info.Model
	if seen[m.Name] {
		return engine.Rendered{}, fmt.Errorf("cycle through %s", m.Name)
	}
	seen[m.Name] = true
	defer delete(seen, m.Name)
	var refErr error
	start, end := b.fullRange()
	r, _ := analysis.RenderBody(m, analysis.MacroText{
		Ref: func(name string) (string, bool) {
			pi := b.a.Models[name]
			if pi == nil {
				refErr = fmt.Errorf("unknown model %s", name)
				return "", false
			}
			if pi.Model.Kind.Name.Virtual() {
				sub, err := b.inline(pi, seen)
				if err != nil {
					refErr = err
					return "", false
				}
				return sub, true
			}
			if b.env != "" {
				return b.d.QuoteRelation(analysis.EnvRelation(b.d, b.env, pi.Model)), true
			}
			return b.d.QuoteRelation(analysis.PhysicalRelation(b.d, pi.Model, b.physFP(pi))), true
		},
		Start: start, End: end, This: "NULL",
		Vars: b.a.Project.Config.Variables, Literal: b.d.Literal, Columns: b.a.ColumnsOf, Env: b.a.Project.Config.Env,
	})
	return r, refErr
}

// inline renders a ref to a virtual model as the subquery its consumers
// read in place: an EMBEDDED model's body, an EXTERNAL model's source read
// with the declared columns enforced (renderBody adds an alias where the
// consumer wrote none).
func (b *builder) inline(info *analysis.ModelInfo, seen map[string]bool) (string, error) {
	var q string
	if info.Model.Kind.Name == project.KindEmbedded {
		r, err := b.render(info, seen)
		if err != nil {
			return "", err
		}
		q = r.SQL
	} else {
		var err error
		if q, err = b.Query(info); err != nil {
			return "", err
		}
	}
	return "(\n" + q + "\n)", nil
}

// fullRange is the interval of a model computed whole: from the project's
// start to now.
func (b *builder) fullRange() (string, string) {
	if b.interval != nil {
		return b.d.TimestampLiteral(b.interval.Start.UTC().Format(time.RFC3339)), b.d.TimestampLiteral(b.interval.End.UTC().Format(time.RFC3339))
	}
	start := "1970-01-01T00:00:00Z"
	if s := b.a.Project.Config.Start; s != "" {
		if t, err := project.ParseTime(s); err == nil {
			start = t.UTC().Format(time.RFC3339)
		}
	}
	return b.d.TimestampLiteral(start), b.d.TimestampLiteral(b.now.UTC().Format(time.RFC3339Nano))
}

func (b *builder) readFiles(m *project.Model, paths []string, format string, opts []project.Option) (string, error) {
	fr, ok := b.wh.(engine.FileReader)
	if !ok {
		return "", &engine.FeatureError{Engine: b.d.Name(), Feature: "reading files (" + m.Name + ")"}
	}
	spec := engine.FileSpec{Format: format, Columns: analysis.Declared(m), Options: analysis.FileOptions(opts)}
	for _, p := range paths {
		spec.Paths = append(spec.Paths, analysis.AbsPath(b.root, p))
	}
	return fr.ReadFiles(spec)
}

// checkContract describes the model's query in the warehouse and compares
// it with the declared columns.
func (b *builder) checkContract(ctx context.Context, info *analysis.ModelInfo, q string) error {
	m := info.Model
	if m.Columns == nil {
		return nil
	}
	got, err := b.wh.Describe(ctx, q)
	if err != nil {
		return err
	}
	// Warnings (a narrowing declaration) were said at check; only an
	// error stops the build.
	var errs []project.Diagnostic
	for _, d := range analysis.ContractDiagnostics(b.a.Project, b.d, m, got) {
		if d.Severity == project.SeverityError {
			errs = append(errs, d)
		}
	}
	if len(errs) > 0 {
		return &ContractError{Diagnostics: errs}
	}
	return nil
}

// addColumns brings an inherited table to the new version's columns: new
// ones are added (NULL in history), the plan's widened ones converted in
// place; a dropped one is an error.
func (b *builder) addColumns(ctx context.Context, info *analysis.ModelInfo, retyped []Retype) error {
	rel := analysis.PhysicalRelation(b.d, info.Model, b.physFP(info))
	have, err := b.wh.Describe(ctx, "SELECT * FROM "+b.d.QuoteRelation(rel))
	if err != nil {
		return err
	}
	want := info.Columns
	if want == nil {
		want = info.Inferred
	}
	wantBy := map[string]bool{}
	for _, c := range want {
		wantBy[strings.ToLower(c.Name)] = true
	}
	haveBy := map[string]bool{}
	for _, c := range have {
		haveBy[strings.ToLower(c.Name)] = true
		if !wantBy[strings.ToLower(c.Name)] {
			return fmt.Errorf("forward-only cannot drop column %q: the existing table keeps it; make a breaking change instead", c.Name)
		}
	}
	for _, c := range want {
		if haveBy[strings.ToLower(c.Name)] {
			continue
		}
		if err := b.wh.Exec(ctx, b.d.AddColumn(rel, c)); err != nil {
			return err
		}
	}
	// The widenings the plan decided (columnMigration), as it said them.
	for _, r := range retyped {
		if err := b.wh.Exec(ctx, b.d.AlterColumnType(rel, engine.Column{Name: r.Column, Type: r.To})); err != nil {
			return fmt.Errorf("forward-only: widen column %s: %w", r, err)
		}
	}
	return nil
}

// provenContract reports whether the checker already bound the model's
// query, in the engine itself, against exactly what its parents' physical
// relations hold, so the contract it verified is the warehouse's: every
// parent's stand-in had the parent's real column types (declared types
// equal to the inferred ones, or no declaration; seeds and externals are
// cast to their declaration). Then describing the new table again would
// only repeat that answer. A static binder's types (Binder) prove nothing.
func (b *builder) provenContract(info *analysis.ModelInfo) bool {
	if info.Inferred == nil || !b.a.BoundInEngine() {
		return false
	}
	for _, r := range info.Model.Refs() {
		pi := b.a.Models[r]
		if pi == nil {
			return false
		}
		switch pi.Model.Kind.Name {
		case project.KindSeed, project.KindExternal:
			if pi.Model.Columns == nil {
				return false
			}
			continue
		}
		if pi.Model.Columns == nil {
			continue // the stand-in was the inferred schema itself
		}
		if len(pi.Inferred) != len(pi.Model.Columns) {
			return false
		}
		for i, c := range pi.Model.Columns {
			if !engine.SameIdent(b.d, c.Name, pi.Inferred[i].Name) || !b.sameType(c.Type, pi.Inferred[i].Type) {
				return false
			}
		}
	}
	return true
}

// sameType reports whether a declared type and the one the engine
// reported are the same type by the engine's naming (provenContract: only
// an engine that binds the bodies itself proves anything).
func (b *builder) sameType(declared, reported string) bool {
	sc, ok := b.d.(engine.Scratch)
	return ok && sc.ReportedType(declared) == sc.ReportedType(reported)
}
