package lsp

import (
	"context"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// describeTimeout bounds the engine's description of a part of a query
// that a hover waits for once the checker has taken it up.
const describeTimeout = 3 * time.Second

// describeStart is how long a hover waits for the checker to take up its
// description. The checker takes such work between checks only, so while
// a check runs the hover answers at once with what it knows without the
// engine (the origin, no type) instead of waiting behind the check.
const describeStart = 100 * time.Millisecond

// describeNow runs f on the checker's workbench when the checker takes it
// up within describeStart, bounded by describeTimeout; otherwise it
// returns an error at once.
func describeNow(ctx context.Context, ck *checker, f func(ctx context.Context, wb analysis.Workbench) error) error {
	ctx, cancel := context.WithTimeout(ctx, describeTimeout)
	defer cancel()
	started, finished := make(chan struct{}), make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-started:
		case <-finished:
		case <-time.After(describeStart):
			cancel()
		}
	}()
	return ck.do(ctx, func(wb analysis.Workbench) error {
		close(started)
		return f(ctx, wb)
	})
}

// withEngineTypes returns a copy of w whose deepType asks the engine for
// the types of the columns of m's CTEs and FROM subqueries that cannot be
// told from the parents' columns (a struct or a list the query builds, an
// unnest of one): the workbench describes the CTE or subquery as the check
// binds the body (analysis.DescribeBody). top is m's query. Each relation
// is described at most once per copy.
func withEngineTypes(ctx context.Context, v *view, w *world, m *project.Model, top *sqlread.Query) *world {
	if v == nil || w.res == nil || w.res.analysis == nil || m == nil || top == nil {
		return w
	}
	a := w.res.analysis
	seen := map[*sqlread.Source][]engine.Column{}
	cw := *w
	cw.relTypes = func(scope *sqlread.Query, s *sqlread.Source) []engine.Column {
		if cols, ok := seen[s]; ok {
			return cols
		}
		seen[s] = nil
		probe := probeModel(m, top, scope, s)
		if probe == nil {
			return nil
		}
		var cols []engine.Column
		err := describeNow(ctx, v.ck, func(ctx context.Context, wb analysis.Workbench) error {
			var err error
			cols, err = analysis.DescribeBody(ctx, a, wb, probe)
			return err
		})
		if err != nil {
			return nil
		}
		seen[s] = cols
		return cols
	}
	types := map[string]string{}
	cw.exprType = func(expr string) string {
		if t, ok := types[expr]; ok {
			return t
		}
		types[expr] = ""
		probe := &project.Model{Name: m.Name, File: m.File, Source: []byte("SELECT " + expr + " AS efmesh_probe\n")}
		var cols []engine.Column
		err := describeNow(ctx, v.ck, func(ctx context.Context, wb analysis.Workbench) error {
			var err error
			cols, err = analysis.DescribeBody(ctx, a, wb, probe)
			return err
		})
		if err == nil && len(cols) == 1 {
			types[expr] = cols[0].Type
		}
		return types[expr]
	}
	return &cw
}

// engineType is the type the engine gives column name of the CTE or
// subquery s read in scope; "" when it cannot tell.
func (w *world) engineType(scope *sqlread.Query, s *sqlread.Source, name string) string {
	if w.relTypes == nil || s == nil || s.CTE == nil && s.Sub == nil {
		return ""
	}
	for _, c := range w.relTypes(scope, s) {
		if sqlscan.SameName(c.Name, name) {
			return c.Type
		}
	}
	return ""
}

// probeModel is m with its body cut down to a query of the relation s
// that scope reads: for a CTE of top, the WITH clause up to it and
// `SELECT * FROM` it; for a subquery in the FROM clause of top or of one
// of its CTEs' bodies, the CTEs that scope sees and `SELECT * FROM (…)`
// the subquery. The header, and the macros of the kept text, stay where
// they are, so that the body binds as the model's does. nil for any
// other relation.
func probeModel(m *project.Model, top, scope *sqlread.Query, s *sqlread.Source) *project.Model {
	if top.Start < m.BodyStart || top.Start > len(m.Source) {
		return nil
	}
	// ctesEnd is where the CTEs up to (and without) index n end.
	ctesEnd := func(n int) (int, bool) {
		if n == 0 {
			return top.Start, true
		}
		c := top.CTEs[n-1]
		if c.Query == nil {
			return 0, false
		}
		toks := sqlscan.Tokens(m.Source, c.Query.End)
		if len(toks) == 0 || toks[0].Text(m.Source) != ")" {
			return 0, false
		}
		return toks[0].End, true
	}
	var prefix int
	var tail []byte
	var sub *sqlread.Query
	switch {
	case s.CTE != nil:
		i := -1
		for k, c := range top.CTEs {
			if c == s.CTE {
				i = k
			}
		}
		if i < 0 {
			return nil
		}
		end, ok := ctesEnd(i + 1)
		if !ok {
			return nil
		}
		prefix = end
		tail = append([]byte(" SELECT * FROM "), m.Source[s.CTE.NameStart:s.CTE.NameEnd]...)
	case s.Sub != nil:
		n := len(top.CTEs)
		if scope != top {
			n = -1
			for k, c := range top.CTEs {
				if c.Query == scope {
					n = k
				}
			}
			if n < 0 {
				return nil
			}
		}
		end, ok := ctesEnd(n)
		if !ok || s.Sub.Start < end || s.Sub.End > len(m.Source) {
			return nil
		}
		prefix, sub = end, s.Sub
		tail = []byte(" SELECT * FROM (")
	default:
		return nil
	}
	src := append([]byte(nil), m.Source[:prefix]...)
	src = append(src, tail...)
	var macros []project.Macro
	for _, mc := range m.Macros {
		if mc.End <= prefix {
			macros = append(macros, mc)
		}
	}
	if sub != nil {
		delta := len(src) - sub.Start
		for _, mc := range m.Macros {
			if mc.Start >= sub.Start && mc.End <= sub.End {
				mc.Start += delta
				mc.End += delta
				if mc.ArgEnd > 0 {
					mc.ArgStart += delta
					mc.ArgEnd += delta
				}
				macros = append(macros, mc)
			}
		}
		src = append(src, m.Source[sub.Start:sub.End]...)
		src = append(src, ") AS efmesh_probe"...)
	}
	src = append(src, '\n')
	probe := *m
	probe.Source, probe.Macros = src, macros
	return &probe
}
