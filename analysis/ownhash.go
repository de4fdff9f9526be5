package analysis

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// OwnHashes computes, for each of models, the own hash a plan's analysis
// gives it, from the model alone: its canonical form is the engine's parse
// of its body rendered exactly as the analysis renders it for the
// fingerprint (refs by name, interval bounds as parameters, p's
// variables), hashed with its metadata. It reads no other model and binds
// nothing, so it costs one parse per model (one batch when wb can), not an
// analysis of the project.
//
// A model is fingerprinted as its own hash combined with its parents'
// fingerprints: two texts of one model with the same own hash give it, and
// every model below it, the same fingerprint. The models need not be p's:
// a model parsed from a new text of one of p's files (project.ParseModel)
// is hashed with p's configuration.
//
// A body holding @STAR or @UNION is rendered with the columns of the
// models they read, which only an analysis knows: here it is rendered
// with stand-ins (a parent's declared columns, else one placeholder
// column), the same for every text, so the hashes of two texts of the
// model compare as the analysis' would, though they are not the
// analysis' hash.
//
// errs[i] says why models[i] has no own hash (its body does not parse, or
// holds what the analysis refuses before parsing); hashes[i] is then "".
// An engine's refusal is a *ModelErrors: the diagnostics a plan's analysis
// gives for it, positioned in the model's file.
func OwnHashes(p *project.Project, models []*project.Model, wb Workbench) (hashes []string, errs []error) {
	c := &checker{wb: wb, d: wb.Dialect(), root: p.Root, a: &Analysis{Project: p, Models: standInColumns(p, models)}}
	hashes, errs = make([]string, len(models)), make([]error, len(models))
	canons := make([][]byte, len(models))
	renders := make([]engine.Rendered, len(models))
	var idx []int
	var sqls []string
	for i, m := range models {
		if !m.Kind.Name.HasBody() {
			continue
		}
		if err := bodyRefusal(m); err != nil {
			errs[i] = err
			continue
		}
		r := c.canonicalRender(m)
		if strings.TrimSpace(r.SQL) == "" {
			errs[i] = errors.New("the model has no query")
			continue
		}
		renders[i] = r
		idx = append(idx, i)
		sqls = append(sqls, r.SQL)
	}
	if bc, ok := wb.(batchCanonicalizer); ok && len(sqls) > 1 {
		cs, es := bc.CanonicalizeAll(sqls)
		for k, i := range idx {
			canons[i], errs[i] = cs[k], es[k]
		}
	} else {
		for k, i := range idx {
			canons[i], errs[i] = wb.Canonicalize(sqls[k])
		}
	}
	for _, i := range idx {
		if errs[i] == nil {
			continue
		}
		// The engine's error, said as the analysis says it.
		n := len(c.a.Diagnostics)
		c.sqlDiag(models[i], renders[i], errs[i])
		if len(c.a.Diagnostics) > n {
			errs[i] = &ModelErrors{Diagnostics: c.a.Diagnostics[n:len(c.a.Diagnostics):len(c.a.Diagnostics)]}
		}
	}
	for i, m := range models {
		if errs[i] != nil {
			continue
		}
		content := ""
		if m.Kind.Name == project.KindSeed {
			h, err := c.fileHash(m.Kind.Path)
			if err != nil {
				errs[i] = fmt.Errorf("seed file %s: %v", m.Kind.Path, unwrapPathErr(err))
				continue
			}
			content = h
		}
		hashes[i] = ownHash(m, canons[i], content)
	}
	return hashes, errs
}

// ModelErrors are a model's errors as a plan's analysis reports them.
type ModelErrors struct {
	Diagnostics []project.Diagnostic
}

// Error is the diagnostics' messages, each after its line:column.
func (e *ModelErrors) Error() string {
	parts := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		parts[i] = fmt.Sprintf("%d:%d: %s", d.Range.Start.Line, d.Range.Start.Column, d.Message)
	}
	return strings.Join(parts, "; ")
}

// bodyRefusal is what the checker refuses in a body before the engine
// parses it (checker.body): text that is not UTF-8, and @this.
func bodyRefusal(m *project.Model) error {
	if m.BodyStart <= len(m.Source) && !utf8.Valid(m.Source[m.BodyStart:]) {
		return errors.New("the body is not valid UTF-8")
	}
	for _, mc := range m.Macros {
		if mc.Kind == project.MacroThis {
			return errors.New("@this is only valid in audits")
		}
	}
	return nil
}

// AuditIdentities computes, for each of the custom audits (parsed from
// their files alone), what a run of the audit depends on: its name,
// blocking and description, and the engine's canonical form of its query
// with @this, @ref and @var rendered as stand-ins (p's variables). Two
// texts of one audit file with the same identity run the same audit.
// errs[i] says why audits[i] has none (its query does not parse).
func AuditIdentities(p *project.Project, audits []*project.CustomAudit, wb Workbench) (ids []string, errs []error) {
	d := wb.Dialect()
	ids, errs = make([]string, len(audits)), make([]error, len(audits))
	for i, a := range audits {
		if a.BodyStart <= len(a.Source) && !utf8.Valid(a.Source[a.BodyStart:]) {
			errs[i] = errors.New("the query is not valid UTF-8")
			continue
		}
		end := BodyEnd(a.Source, a.BodyStart)
		var subs []engine.Substitution
		for _, mc := range a.Macros {
			if mc.Start < a.BodyStart || mc.End > end {
				continue
			}
			text := "NULL"
			switch mc.Kind {
			case project.MacroThis:
				text = engine.QuoteIdent("__efmesh_this")
			case project.MacroRef:
				s, t := SplitName(mc.Arg)
				text = engine.QuoteIdent(s) + "." + engine.QuoteIdent(t)
			case project.MacroVar:
				if v, ok := p.Config.Variables[mc.Arg]; ok {
					text = d.Literal(v)
				}
			case project.MacroStart:
				text = d.Placeholder("start")
			case project.MacroEnd:
				text = d.Placeholder("end")
			}
			subs = append(subs, engine.Substitution{Start: mc.Start, End: mc.End, Text: text})
		}
		sql := engine.Render(a.Source, a.BodyStart, end, subs).SQL
		if strings.TrimSpace(sql) == "" {
			errs[i] = errors.New("the audit has no query")
			continue
		}
		canon, err := wb.Canonicalize(sql)
		if err != nil {
			errs[i] = err
			continue
		}
		ids[i] = a.Name + "\x00" + strconv.FormatBool(a.Blocking) + "\x00" + a.Description + "\x00" + string(canon)
	}
	return ids, errs
}

// standInColumns are model infos holding only columns, for the parents
// that the @STAR and @UNION of models read: declared columns, else one
// placeholder column.
func standInColumns(p *project.Project, models []*project.Model) map[string]*ModelInfo {
	out := map[string]*ModelInfo{}
	for _, m := range models {
		if !readsParentColumns(m) {
			continue
		}
		for _, r := range m.Refs() {
			if out[r] != nil {
				continue
			}
			cols := []engine.Column{{Name: "_efmesh_columns_of_" + strings.ReplaceAll(r, ".", "_"), Type: "TEXT"}}
			if pm := p.ByName[r]; pm != nil && len(pm.Columns) > 0 {
				cols = cols[:0]
				for _, c := range pm.Columns {
					cols = append(cols, engine.Column{Name: c.Name, Type: c.Type})
				}
			}
			out[r] = &ModelInfo{Columns: cols}
		}
	}
	return out
}
