package analysis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// propertyColumns checks the columns the header names against what the
// model yields: the time column of an incremental model (and that it holds
// dates or timestamps), unique keys, the grain. Apply relies on each.
func (c *checker) propertyColumns(m *project.Model, cols []engine.Column) {
	byName := make(map[string]engine.Column, len(cols))
	names := make([]string, len(cols))
	for i, col := range cols {
		byName[engine.IdentKey(c.d, col.Name)] = col
		names[i] = col.Name
	}
	check := func(prop, what, name string) (engine.Column, bool) {
		col, ok := byName[engine.IdentKey(c.d, name)]
		if !ok {
			msg := fmt.Sprintf("%s %s is not a column of the query", what, name)
			if s, ok := project.DidYouMean(name, names); ok {
				msg += fmt.Sprintf("; did you mean %q?", s)
			} else if len(names) <= 12 {
				msg += "; it yields " + strings.Join(names, ", ")
			}
			c.wordDiag(m, prop, name, project.CodeUnknownColumn, msg)
		}
		return col, ok
	}
	switch k := m.Kind; k.Name {
	case project.KindIncrementalByTimeRange:
		if col, ok := check("kind", "time_column", k.TimeColumn); ok && col.Type != "" {
			if f := engine.TypeFamily(col.Type); f != "date" && f != "timestamp" {
				c.wordDiag(m, "kind", k.TimeColumn, project.CodeBadValue,
					fmt.Sprintf("time_column %s is %s; it must hold dates or timestamps", k.TimeColumn, col.Type))
			}
		}
	case project.KindIncrementalByUniqueKey, project.KindSCDType2:
		for _, key := range k.Key {
			check("kind", "key", key)
		}
	}
	if k := m.Kind; k.Name == project.KindSCDType2 {
		// The validity columns are added to the query's: a name the query
		// already yields would be a second column of that name.
		vf, vt := SCDColumns(k)
		for _, opt := range []struct{ option, name string }{{"valid_from", vf}, {"valid_to", vt}} {
			if _, ok := byName[engine.IdentKey(c.d, opt.name)]; ok {
				c.optionWordDiag(m, opt.option, opt.name, project.CodeBadValue,
					fmt.Sprintf("%s %s is a column the query already yields; the table adds %s itself: name another column", opt.option, opt.name, opt.option))
			}
		}
		if engine.IdentKey(c.d, vf) == engine.IdentKey(c.d, vt) {
			c.optionWordDiag(m, "valid_to", vt, project.CodeBadValue,
				fmt.Sprintf("valid_to %s is also valid_from: name two different columns", vt))
		}
	}
	// The grain is of the table, validity columns (SCD_TYPE_2) included.
	for _, col := range WithValidity(m, cols)[len(cols):] {
		byName[engine.IdentKey(c.d, col.Name)] = col
		names = append(names, col.Name)
	}
	for _, g := range m.Grain {
		check("grain", "grain column", g)
	}
}

// wordDiag reports msg on word where the header property prop names it,
// else on the property.
func (c *checker) wordDiag(m *project.Model, prop, word, code, msg string) {
	p, ok := m.Property(prop)
	if !ok {
		c.diag(m, m.Header.Start.Offset, m.Header.Start.Offset, code, msg)
		return
	}
	start, end := p.ValueRange.Start.Offset, p.ValueRange.End.Offset
	if i := wordIndex(m.Source[start:end], word); i >= 0 {
		start, end = start+i, start+i+len(word)
	}
	c.diag(m, start, end, code, msg)
}

// optionWordDiag reports msg on word where the kind's option names it
// (valid_from k: on that k, not on the key's), else on the option, else on
// the kind.
func (c *checker) optionWordDiag(m *project.Model, option, word, code, msg string) {
	p, ok := m.Property("kind")
	if !ok {
		c.wordDiag(m, "kind", word, code, msg)
		return
	}
	start, end := p.ValueRange.Start.Offset, p.ValueRange.End.Offset
	i := wordIndex(m.Source[start:end], option)
	if i < 0 {
		c.wordDiag(m, "kind", word, code, msg)
		return
	}
	start += i
	if j := wordIndex(m.Source[start+len(option):end], word); j >= 0 {
		start += len(option) + j
		c.diag(m, start, start+len(word), code, msg)
		return
	}
	c.diag(m, start, start+len(option), code, msg)
}

// wordIndex finds word in b as a whole identifier, ignoring case; -1 when
// it is not there.
func wordIndex(b []byte, word string) int {
	lw := strings.ToLower(word)
	lb := strings.ToLower(string(b))
	for i := 0; ; {
		j := strings.Index(lb[i:], lw)
		if j < 0 || lw == "" {
			return -1
		}
		j += i
		before := j == 0 || !isIdentByte(lb[j-1])
		after := j+len(lw) >= len(lb) || !isIdentByte(lb[j+len(lw)])
		if before && after && len(lb) == len(b) {
			return j
		}
		i = j + 1
	}
}

// body canonicalizes and binds a SELECT body.
func (c *checker) body(ctx context.Context, info *ModelInfo, parentsOK bool) {
	m := info.Model
	if m.BodyStart <= len(m.Source) && !utf8.Valid(m.Source[m.BodyStart:]) {
		off := m.BodyStart
		for off < len(m.Source) {
			r, n := utf8.DecodeRune(m.Source[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		c.diag(m, off, min(off+1, len(m.Source)), project.CodeSyntax, "the body is not valid UTF-8 here: save the file as UTF-8")
		info.Broken = true
		return
	}
	this := false
	for _, mc := range m.Macros {
		if mc.Kind == project.MacroThis {
			c.diag(m, mc.Start, mc.End, project.CodeBadMacro, "@this is only valid in audits")
			info.Broken, this = true, true
		}
	}
	if this {
		return // the engine would only add a syntax error for what @this renders to
	}
	// Canonical form: refs by name, interval bounds as parameters, so the
	// fingerprint never depends on dates or physical names.
	// A body parsed ahead (precanonicalize, which leaves out the blank
	// ones) is rendered again only to place an error.
	var canon []byte
	var err error
	pre, preOK := c.precanon[m]
	var canonR engine.Rendered
	if preOK {
		canon, err = pre.canon, pre.err
	} else {
		canonR = c.canonicalRender(m)
		if strings.TrimSpace(canonR.SQL) == "" {
			return // the loader reported the missing body
		}
		canon, err = c.wb.Canonicalize(canonR.SQL)
	}
	if err != nil {
		if preOK {
			canonR = c.canonicalRender(m)
		}
		c.sqlDiag(m, canonR, err)
		info.Broken = true
		return
	}
	info.Canonical = canon
	if !parentsOK {
		return
	}
	for _, r := range m.Refs() {
		if pi := c.a.Models[r]; pi == nil || pi.Columns == nil {
			return // a parent of unknown shape: nothing to bind against
		}
	}
	if c.binder != nil {
		rels := map[string][]engine.Column{}
		for _, r := range m.Refs() {
			s, t := checkRelation(r)
			rels[s+"."+t] = c.a.Models[r].Columns
		}
		text := MacroText{
			Ref: func(n string) (string, bool) {
				s, t := checkRelation(n)
				return engine.QuoteIdent(s) + "." + engine.QuoteIdent(t), true
			},
			Start: c.d.Placeholder("start"), End: c.d.Placeholder("end"), This: c.d.Placeholder("this"),
			Vars: c.a.Project.Config.Variables, Literal: c.d.Literal, Columns: c.a.ColumnsOf, Env: c.a.Project.Config.Env,
		}
		if c.server != nil {
			// The server binds what apply runs: stand-ins for the refs,
			// typed literals for the interval bounds.
			text.Ref = func(n string) (string, bool) {
				return c.server.StandIn(c.a.Models[n].Columns), true
			}
			text.Start = c.d.TimestampLiteral("2000-01-01T00:00:00Z")
			text.End = c.d.TimestampLiteral("2000-01-02T00:00:00Z")
		}
		bindR, _ := RenderBody(m, text)
		var cols []engine.Column
		var err error
		if c.server != nil {
			// The server stops at a body's first error: bound again past
			// each one, as an engine's describe is, every typo is found.
			var errs []error
			cols, errs = describeAll(ctx, serverDescriber{c.server, rels}, bindR.SQL)
			if errs != nil && ctx.Err() != nil {
				return // cancelled, not refused
			}
			err = errors.Join(errs...)
		} else {
			cols, err = c.binder.Bind(bindR.SQL, rels)
		}
		if err != nil {
			if many, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range many.Unwrap() {
					c.sqlDiag(m, bindR, e)
				}
			} else {
				c.sqlDiag(m, bindR, err)
			}
			info.Broken = true
			return
		}
		info.Columns = cols // nil: the shape is not known statically
		if cols != nil {
			c.contract(m, cols)
		}
		return
	}
	if c.eng == nil {
		return
	}
	// A body bound ahead (predescribe) bound this same text: its parents,
	// whose stand-ins name the refs, were checked in earlier waves. It is
	// not rendered again; only a body the batch did not answer is.
	var cols []engine.Column
	var errs []error
	var r engine.Rendered
	if pd, ok := c.predesc[m]; ok {
		cols = pd.cols
	} else {
		r = c.bindRender(m)
		cols, errs = describeAll(ctx, c.eng, r.SQL)
	}
	delete(c.predesc, m)
	if errs == nil {
		// A constant that does not cast binds, and fails the build.
		if cc, ok := c.eng.(engine.ConstantChecker); ok {
			if r.SQL == "" {
				r = c.bindRender(m)
			}
			errs = cc.CheckConstants(ctx, info.Canonical, r.SQL)
		}
	}
	if errs != nil {
		for _, err := range errs {
			c.sqlDiag(m, r, err)
		}
		info.Broken = true
		return
	}
	info.Columns = cols
	c.contract(m, cols)
}

// contract compares declared columns with the binder's, in order.
func (c *checker) contract(m *project.Model, got []engine.Column) {
	if m.Columns == nil {
		return
	}
	// Names compare as the engine keeps them (engine.IdentKey): a name
	// the engine cuts is the same name, declared or produced.
	gotBy := map[string]engine.Column{}
	for _, g := range got {
		gotBy[engine.IdentKey(c.d, g.Name)] = g
	}
	declBy := map[string]bool{}
	bad := false
	for _, d := range m.Columns {
		declBy[engine.IdentKey(c.d, d.Name)] = true
		g, ok := gotBy[engine.IdentKey(c.d, d.Name)]
		if !ok {
			c.diag(m, d.Range.Start.Offset, d.Range.End.Offset, project.CodeContract,
				fmt.Sprintf("column %q is declared but the query does not produce it (it produces %s)", d.Name, ColumnList(got)))
			bad = true
			continue
		}
		df, gf := engine.TypeFamily(d.Type), engine.TypeFamily(g.Type)
		if g.Type != "" && !engine.Compatible(df, gf) {
			c.diag(m, d.Range.Start.Offset, d.Range.End.Offset, project.CodeContract,
				fmt.Sprintf("column %q is declared %s (%s) but the query yields %s (%s)", d.Name, d.Type, df, g.Type, gf))
			bad = true
			continue
		}
		// A narrower declaration within the family is stored by a cast
		// that rounds (DECIMAL(5,1) over DECIMAL(10,3)) or fails the
		// build (INT over BIGINT) on values that do not fit: a warning,
		// the same judgement (engine.Widener) forward-only makes.
		if w, ok := c.d.(engine.Widener); ok && g.Type != "" && !w.Widens(g.Type, d.Type) {
			c.warn(m, d.Range.Start.Offset, d.Range.End.Offset, project.CodeContract,
				fmt.Sprintf("column %q is declared %s, narrower than the %s the query yields: a value that does not fit is rounded or fails the build; declare %s or cast in the query", d.Name, d.Type, g.Type, g.Type))
		}
		if tc, ok := c.d.(engine.TypeCaveat); ok {
			if why := tc.TypeCaveat(d.Type); why != "" {
				c.warn(m, d.Range.Start.Offset, d.Range.End.Offset, project.CodeContract, fmt.Sprintf("column %q: %s", d.Name, why))
			}
		}
	}
	var extra []string
	for _, g := range got {
		if !declBy[engine.IdentKey(c.d, g.Name)] {
			extra = append(extra, spellName(g.Name)+" "+g.Type)
		}
	}
	if len(extra) > 0 {
		c.propDiag(m, "columns", project.CodeContract,
			fmt.Sprintf("the query produces undeclared column(s): %s", strings.Join(extra, ", ")))
		bad = true
	}
	if !bad {
		for i, d := range m.Columns {
			if i < len(got) && !engine.SameIdent(c.d, d.Name, got[i].Name) {
				c.diag(m, d.Range.Start.Offset, d.Range.End.Offset, project.CodeContract,
					fmt.Sprintf("column %q is declared at position %d but the query yields %q there", d.Name, i+1, got[i].Name))
				break
			}
		}
	}
}

// ColumnList names cols, comma-separated, for messages: a name that is
// not plain lower case is quoted, so it keeps its case ("Käufer").
func ColumnList(cols []engine.Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = spellName(c.Name)
	}
	return strings.Join(names, ", ")
}

func (c *checker) fileHash(rel string) (string, error) {
	b, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}

// fileReaders names the engines that read files ("DuckDB"), for the
// message of a model that reads files on an engine that cannot.
func fileReaders() string {
	return engine.TitlesWith(func(c engine.Capabilities) bool { return c.ReadsFiles })
}

// describeFiles infers the schema of files a model reads.
func (c *checker) describeFiles(ctx context.Context, m *project.Model, paths []string, format string, opts []project.Option) ([]engine.Column, bool) {
	fr, ok := c.wb.(engine.FileReader)
	if !ok || c.eng == nil {
		c.propDiag(m, "kind", CodeEngineFeature, fmt.Sprintf("%s reads files, which only the %s engine can do; use EXTERNAL (table …) on %s", m.Name, fileReaders(), c.d.Name()))
		c.a.Models[m.Name].Broken = true
		return nil, false
	}
	spec := engine.FileSpec{Format: format, Options: FileOptions(opts)}
	for _, p := range paths {
		spec.Paths = append(spec.Paths, AbsPath(c.root, p))
	}
	q, err := fr.ReadFiles(spec)
	if err != nil {
		c.propDiag(m, "kind", project.CodeBadValue, err.Error())
		return nil, false
	}
	cols, err := c.eng.Describe(ctx, q)
	if err != nil {
		c.propDiag(m, "kind", project.CodeFile, "cannot read "+strings.Join(paths, ", ")+": "+FirstLine(ErrMessage(err)))
		c.a.Models[m.Name].Broken = true
		return nil, false
	}
	return cols, true
}

// Declared is the column list m declares, as engine columns; nil when it
// declares none.
func Declared(m *project.Model) []engine.Column {
	if m.Columns == nil {
		return nil
	}
	out := make([]engine.Column, len(m.Columns))
	for i, c := range m.Columns {
		out[i] = engine.Column{Name: c.Name, Type: c.Type}
	}
	return out
}

// FileOptions converts a model's file reader options for the engine.
func FileOptions(opts []project.Option) []engine.FileOption {
	out := make([]engine.FileOption, len(opts))
	for i, o := range opts {
		out[i] = engine.FileOption{Name: o.Name, Value: o.Value, IsString: o.IsString}
	}
	return out
}

// SeedFormat is the file format of a seed, by its extension: "json" for
// .json and .ndjson, else "csv".
func SeedFormat(path string) string {
	if strings.HasSuffix(strings.ToLower(path), ".json") || strings.HasSuffix(strings.ToLower(path), ".ndjson") {
		return "json"
	}
	return "csv"
}

// ContractDiagnostics compares the columns a query yields (got) with the
// columns m declares, as the check does, and returns the problems found.
// d compares the names (engine.IdentKey); nil compares them as written.
func ContractDiagnostics(p *project.Project, d engine.Dialect, m *project.Model, got []engine.Column) []project.Diagnostic {
	c := &checker{a: &Analysis{Project: p}, d: d}
	c.contract(m, got)
	return c.a.Diagnostics
}
