package analysis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// A redacted environment (efmesh.yaml: environments: {safe: {redacted:
// true}}) gets its own physics for every model that declares redact (…):
// a table (or parquet files) in which those columns were never written.
// A masking view would protect nothing once clients read the files.
//
// The plan of such an environment is made from a variant of the analysis:
// each model with a policy gets an own hash extended by the redacted
// columns (so its fingerprint, and therefore its physical relation,
// differs from the unredacted one), its contract loses those columns, and
// its query is projected onto the remaining ones. Children's fingerprints
// follow from their parents' as always, so a model reading a redacted one
// is rebuilt over the redacted data; models with no policy upstream keep
// their fingerprints and share physics with every other environment.

// CodeRedactedColumn marks a model reading a column that a redacted
// environment leaves out of an upstream model's physics.
const CodeRedactedColumn = "redacted-column"

// redactedCatalog holds the stand-ins of a redacted variant: the same
// models as standInCatalog's with other columns, so neither disturbs the
// other (the editor's and the CLI's analyses keep theirs).
const redactedCatalog = "__efmesh_redacted_refs"

// RedactedVariant returns the analysis env is planned from: a itself
// unless env is redacted and some model declares a policy.
func RedactedVariant(a *Analysis, env string) (*Analysis, error) {
	if !a.Project.Config.Environments[env].Redacted {
		return a, nil
	}
	any := false
	for _, m := range a.Project.Models {
		any = any || len(m.Redact) > 0
	}
	if !any {
		return a, nil
	}
	v := *a
	v.Models = make(map[string]*ModelInfo, len(a.Models))
	v.redacted = map[string][]string{}
	for _, m := range a.Project.Models { // parents first
		info := a.Models[m.Name]
		if info == nil {
			continue
		}
		ni := *info
		ni.def = new(definitionMemo)
		ni.Parents = make(map[string]string, len(info.Parents))
		for p, fp := range info.Parents {
			if pi := v.Models[p]; pi != nil {
				fp = pi.Fingerprint
			}
			ni.Parents[p] = fp
		}
		if len(m.Redact) > 0 && info.Fingerprint != "" {
			have := info.Columns
			if have == nil {
				have = info.Inferred
			}
			for _, c := range m.Redact {
				if !slices.ContainsFunc(have, func(hc engine.Column) bool { return strings.EqualFold(hc.Name, c) }) {
					if have == nil {
						return nil, fmt.Errorf("%s cannot be redacted in %s: its columns are unknown; declare columns (…)", m.Name, env)
					}
					return nil, fmt.Errorf("%s cannot redact %s in %s: it has no such column", m.Name, c, env)
				}
			}
			mc := *m
			mc.Columns = dropColumns(m.Columns, m.Redact)
			mc.Audits = auditsWithout(m.Audits, m.Redact)
			ni.Model = &mc
			ni.Columns = withoutColumns(info.Columns, m.Redact)
			ni.Inferred = withoutColumns(info.Inferred, m.Redact)
			h := sha256.Sum256([]byte(info.OwnHash + "\x00redact\x00" + strings.Join(m.Redact, ",")))
			ni.OwnHash = hex.EncodeToString(h[:])
			v.redacted[m.Name] = m.Redact
		}
		if info.Fingerprint != "" {
			ni.Fingerprint = FingerprintOf(ni.OwnHash, ni.Parents)
		}
		v.Models[m.Name] = &ni
	}
	return &v, nil
}

// CheckRedacted binds again, against stand-ins of the variant v's columns
// in wb, every model whose parents' columns differ in v from base (the
// unredacted analysis): the descendants of models with a policy, in DAG
// order, down to where the shape stops changing (a child that does not
// pass a redacted column on keeps its columns, and its children are not
// checked again). It returns the problems found, positioned in the
// models' files as the checker positions them, each naming env and the
// policy behind it. A model whose columns change (SELECT * over a
// redacted parent) gets them in v, so its own children bind against what
// the environment really builds.
func CheckRedacted(ctx context.Context, v, base *Analysis, wb Workbench, env string) ([]project.Diagnostic, error) {
	ck := newChecker(wb, v.Project.Root, v)
	if ck.eng == nil && ck.binder == nil {
		return nil, nil // a workbench that only parses binds nothing
	}
	ck.catalog = redactedCatalog
	v.standIns = map[string]bool{} // the variant's own, in its catalog
	v.standInTables = map[string]bool{}
	if err := ck.reset(ctx); err != nil {
		return nil, err
	}
	if ck.eng != nil {
		defer ck.eng.Exec(context.WithoutCancel(ctx), ck.scratch.DropScratch(redactedCatalog))
	}
	moved := map[string]bool{} // models whose columns differ in v
	for name := range v.redacted {
		moved[name] = true
	}
	var diags []project.Diagnostic
	for _, pm := range v.Project.Models {
		ni := v.Models[pm.Name]
		if ni == nil || ni.Fingerprint == "" || !pm.Kind.Name.HasBody() || !slices.ContainsFunc(pm.Refs(), func(r string) bool { return moved[r] }) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := ck.ensureParents(ctx, pm); err != nil {
			return nil, err
		}
		// The body as written (pm, not the variant's projected copy of
		// a model with a policy), bound in a scratch entry so the
		// variant's stays as it is until the check is done.
		scratch := &ModelInfo{Model: pm, Parents: map[string]string{}}
		v.Models[pm.Name] = scratch
		ck.body(ctx, scratch, true)
		v.Models[pm.Name] = ni
		if project.HasErrors(scratch.Diagnostics) || scratch.Broken {
			for _, d := range scratch.Diagnostics {
				diags = append(diags, redactedDiag(v, pm, env, d))
			}
			continue
		}
		inferred := scratch.Columns
		cols := Declared(pm)
		if cols == nil {
			cols = inferred
		}
		cols = WithValidity(pm, cols)
		if drop := v.redacted[pm.Name]; len(drop) > 0 {
			cols, inferred = withoutColumns(cols, drop), withoutColumns(inferred, drop)
		}
		if !SameColumns(cols, ni.Columns) {
			ni.Columns, ni.Inferred = cols, inferred
			moved[pm.Name] = true
		}
	}
	project.SortDiagnostics(diags)
	return diags, nil
}

// redactedDiag says which environment and policy make d a problem: an
// unknown column that a policy upstream of m redacts becomes "column x is
// redacted in environment env (model redact (…))"; any other finding
// names the policies upstream.
func redactedDiag(v *Analysis, m *project.Model, env string, d project.Diagnostic) project.Diagnostic {
	var policies []string
	seen := map[string]bool{}
	var walk func(name string)
	walk = func(name string) {
		pm := v.Project.ByName[name]
		if pm == nil || seen[name] {
			return
		}
		seen[name] = true
		for _, r := range pm.Refs() {
			walk(r)
		}
		if drop := v.redacted[name]; len(drop) > 0 && name != m.Name {
			policies = append(policies, name+" redact ("+strings.Join(drop, ", ")+")")
		}
	}
	walk(m.Name)
	if d.Code == project.CodeUnknownColumn {
		col := strings.ToLower(engine.Between(d.Message, `unknown column "`, `"`))
		for _, name := range slices.Sorted(maps.Keys(seen)) {
			if drop := v.redacted[name]; name != m.Name && slices.Contains(drop, col) {
				d.Code = CodeRedactedColumn
				d.Message = fmt.Sprintf("column %s is redacted in environment %s (%s redact (%s))", col, env, name, strings.Join(drop, ", "))
				d.Fixes = nil
				return d
			}
		}
	}
	if len(policies) > 0 {
		d.Message += fmt.Sprintf(" (in environment %s, where %s)", env, strings.Join(policies, ", "))
	}
	return d
}

// auditsWithout leaves out the built-in audits naming a redacted column:
// the redacted physics has nothing for them to check.
func auditsWithout(calls []project.AuditCall, drop []string) []project.AuditCall {
	var out []project.AuditCall
	for _, c := range calls {
		inner := c
		for inner.Inner != nil {
			inner = *inner.Inner
		}
		names := false
		if _, builtin := BuiltinAuditNames[inner.Name]; builtin {
			for _, a := range inner.Args {
				names = names || slices.Contains(drop, strings.ToLower(a))
			}
		}
		if !names {
			out = append(out, c)
		}
	}
	return out
}

// BuiltinAuditNames are the audits efmesh defines itself (a project's
// custom audits have other names).
var BuiltinAuditNames = map[string]bool{"not_null": true, "unique": true, "accepted": true, "assert_contiguous": true, "assert_no_gaps": true}

func dropColumns(cols []project.Column, drop []string) []project.Column {
	if cols == nil {
		return nil
	}
	out := []project.Column{}
	for _, c := range cols {
		if !slices.Contains(drop, strings.ToLower(c.Name)) {
			out = append(out, c)
		}
	}
	return out
}

func withoutColumns(cols []engine.Column, drop []string) []engine.Column {
	if cols == nil {
		return nil
	}
	out := []engine.Column{}
	for _, c := range cols {
		if !slices.Contains(drop, strings.ToLower(c.Name)) {
			out = append(out, c)
		}
	}
	return out
}
