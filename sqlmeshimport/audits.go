package sqlmeshimport

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/efmesh/efmesh/macro"
)

// smAudit is one AUDIT definition: of an audit file, or of a model file
// after its query.
type smAudit struct {
	name       string
	rel        string
	src        []byte
	hdr        *block
	query      stmt
	params     []string // @names of its query that are its parameters
	standalone bool
	blocking   bool
	descr      string
}

// readAudits reads audits/**/*.sql: each file holds one or more AUDIT
// headers, each followed by its query.
func (c *converter) readAudits() error {
	return walk(filepath.Join(c.from, "audits"), func(path string) error {
		if !strings.HasSuffix(path, ".sql") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel := c.rel(path)
		stmts := statements(src, 0)
		for i := 0; i < len(stmts); i++ {
			if stmts[i].kind != stmtAudit || i+1 >= len(stmts) {
				continue
			}
			c.addAudit(rel, src, stmts[i], stmts[i+1])
			i++
		}
		return nil
	})
}

func (c *converter) addAudit(rel string, src []byte, h, q stmt) {
	r := newReader(src)
	hdr, _ := r.headerAt(r.index(h.start), "audit")
	a := &smAudit{rel: rel, src: src, hdr: hdr, query: q, blocking: true}
	for _, p := range hdr.props {
		v := scalar(src, p)
		switch p.name {
		case "name":
			a.name = strings.ToLower(v)
		case "standalone":
			a.standalone = strings.EqualFold(v, "true")
		case "blocking":
			a.blocking = !strings.EqualFold(v, "false")
		case "description":
			a.descr = v
		}
	}
	if a.name == "" {
		c.report(rel, src, h.start, "AUDIT", "audit without a name")
		return
	}
	for _, mc := range macros(src, q.start, q.end) {
		if mc.name == "this_model" || runVars[mc.name] != "" || macro.IsBuiltin(mc.name) || macro.IsPrimitive(mc.name) {
			continue
		}
		if !contains(a.params, mc.name) {
			a.params = append(a.params, mc.name)
		}
	}
	c.audits[a.name] = a
}

// writeAudits writes every audit that converts to audits/<name>.sql and
// reports the others at their definition.
func (c *converter) writeAudits() {
	names := make([]string, 0, len(c.audits))
	for n := range c.audits {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		a := c.audits[n]
		switch {
		case a.standalone:
			c.report(a.rel, a.src, a.hdr.start, "AUDIT "+n, "standalone audit: efmesh's audits belong to a model (name it in a model's audits, or make it a unit test)")
			continue
		case len(a.params) > 0:
			c.report(a.rel, a.src, a.hdr.start, "AUDIT "+n+" (@"+strings.Join(a.params, ", @")+")", "audit with parameters: efmesh's custom audits take no arguments (write one audit per set of values)")
			continue
		}
		var edits []edit
		ok := true
		for _, t := range tables(a.src, a.query.start, a.query.end) {
			if ref, found := c.resolve(t.name); found {
				edits = append(edits, edit{t.start, t.end, ref})
			} else if strings.Contains(t.name, ".") {
				c.report(a.rel, a.src, t.start, t.name, "EXTERNAL candidate in an audit: no model of the project")
				ok = false
			}
		}
		for _, mc := range macros(a.src, a.query.start, a.query.end) {
			switch {
			case mc.name == "this_model":
				edits = append(edits, edit{mc.start, mc.end, "@this"})
			case runVars[mc.name] != "":
				edits = append(edits, edit{mc.start, mc.end, runVars[mc.name]})
			}
		}
		if !ok {
			continue
		}
		body := apply(string(a.src[:a.query.end]), edits)[a.query.start:]
		c.customAudit(n, a.blocking, a.descr, "sqlmesh "+a.rel, body)
	}
}

// customAudit writes audits/<name>.sql once.
func (c *converter) customAudit(name string, blocking bool, descr, from, body string) {
	path := "audits/" + name + ".sql"
	if c.written[path] {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "-- Converted from %s\nAUDIT (\n  name %s,\n  blocking %t", from, name, blocking)
	if descr != "" {
		fmt.Fprintf(&b, ",\n  description %s", sqlString(descr))
	}
	b.WriteString("\n);\n\n" + strings.TrimSpace(body) + "\n")
	c.emit(path, b.String())
}

// auditCalls maps the entries of a model's audits (…): sqlmesh's built-in
// audits to efmesh's (or to custom audit files efmesh writes), calls of
// the project's audit files by name. Each other entry is reported.
func (c *converter) auditCalls(m *smModel, p prop, report func(int, string, string)) []string {
	src := m.src
	var out []string
	for _, e := range elements(src, p) {
		text := strings.TrimSpace(string(src[e.start:e.end]))
		name, args, ok := callArgs(src, e.toks)
		if !ok {
			report(e.start, text, "audit call efmesh cannot read")
			continue
		}
		warn := false
		if n, cut := strings.CutSuffix(name, "_non_blocking"); cut {
			name, warn = n, true
		}
		if b, has := args["blocking"]; has {
			warn = strings.EqualFold(scalar(src, b), "false")
			delete(args, "blocking")
		}
		wrap := func(s string) string {
			if warn {
				return "warn(" + s + ")"
			}
			return s
		}
		cols := func(key string) []string {
			a, has := args[key]
			if !has {
				return nil
			}
			return list(src, a)
		}
		only := func(keys ...string) bool {
			for k := range args {
				if !contains(keys, k) {
					report(e.start, text, "audit argument efmesh has no equivalent for: "+k)
					return false
				}
			}
			return true
		}
		switch name {
		case "not_null", "unique_combination_of_columns":
			cs := cols("columns")
			if len(cs) == 0 || !only("columns") {
				if len(cs) == 0 {
					report(e.start, text, "audit without columns")
				}
				continue
			}
			fn := "not_null"
			if name != "not_null" {
				fn = "unique"
			}
			out = append(out, wrap(fn+"("+strings.Join(cs, ", ")+")"))
		case "unique_values":
			cs := cols("columns")
			if len(cs) == 0 || !only("columns") {
				if len(cs) == 0 {
					report(e.start, text, "audit without columns")
				}
				continue
			}
			for _, col := range cs { // each column unique on its own
				out = append(out, wrap("unique("+col+")"))
			}
		case "accepted_values":
			cs, vals := cols("column"), cols("is_in")
			if len(cs) != 1 || len(vals) == 0 || !only("column", "is_in") {
				if len(cs) != 1 || len(vals) == 0 {
					report(e.start, text, "accepted_values needs column := c, is_in := (…)")
				}
				continue
			}
			out = append(out, wrap("accepted("+cs[0]+", "+strings.Join(vals, ", ")+")"))
		case "accepted_range":
			cs, lo, hi := cols("column"), cols("min_v"), cols("max_v")
			if len(cs) != 1 || len(lo)+len(hi) == 0 || len(lo) > 1 || len(hi) > 1 || !only("column", "min_v", "max_v", "inclusive") {
				if len(cs) != 1 || len(lo)+len(hi) == 0 {
					report(e.start, text, "accepted_range needs column := c and min_v or max_v")
				}
				continue
			}
			lt, gt := "<", ">"
			if in := cols("inclusive"); len(in) == 1 && strings.EqualFold(in[0], "false") {
				lt, gt = "<=", ">="
			}
			var conds []string
			if len(lo) == 1 {
				conds = append(conds, cs[0]+" "+lt+" "+lo[0])
			}
			if len(hi) == 1 {
				conds = append(conds, cs[0]+" "+gt+" "+hi[0])
			}
			audit := strings.ReplaceAll(m.name, ".", "_") + "_" + ident(cs[0]) + "_range"
			c.customAudit(audit, true, "", "sqlmesh's accepted_range of "+m.rel,
				"SELECT * FROM @this WHERE "+strings.Join(conds, " OR "))
			out = append(out, wrap(audit))
		case "number_of_rows":
			th := cols("threshold")
			if len(th) != 1 || !only("threshold") {
				if len(th) != 1 {
					report(e.start, text, "number_of_rows needs threshold := n")
				}
				continue
			}
			n := ident(th[0])
			audit := "number_of_rows_above_" + strings.TrimPrefix(n, "m_")
			c.customAudit(audit, true, "More than "+th[0]+" rows", "sqlmesh's number_of_rows(threshold := "+th[0]+")",
				"SELECT n FROM (SELECT count(*) AS n FROM @this) AS c WHERE n <= "+th[0])
			out = append(out, wrap(audit))
		case "forall":
			crit := cols("criteria")
			if len(crit) == 0 || !only("criteria") {
				if len(crit) == 0 {
					report(e.start, text, "forall needs criteria := (…)")
				}
				continue
			}
			audit := strings.ReplaceAll(m.name, ".", "_") + "_forall"
			for i := 2; c.written["audits/"+audit+".sql"]; i++ {
				audit = fmt.Sprintf("%s_forall_%d", strings.ReplaceAll(m.name, ".", "_"), i)
			}
			conds := make([]string, len(crit))
			for i, cr := range crit {
				conds[i] = "NOT (" + cr + ")"
			}
			c.customAudit(audit, true, "", "sqlmesh's forall(criteria := …) of "+m.rel,
				"SELECT * FROM @this WHERE "+strings.Join(conds, " OR "))
			out = append(out, wrap(audit))
		default:
			a, known := c.audits[name]
			switch {
			case !known:
				report(e.start, text, "audit that is no sqlmesh built-in efmesh converts and no audit of the project")
			case len(args) > 0 || len(a.params) > 0:
				report(e.start, text, "custom audit with arguments: efmesh's custom audits take none")
			case a.standalone:
				report(e.start, text, "standalone audit called from a model")
			default:
				out = append(out, wrap(name))
			}
		}
	}
	return out
}

// elements splits a list value ((a, b), [a, b] or a alone) into one prop
// per element.
func elements(src []byte, p prop) []prop {
	toks := p.toks
	if len(toks) >= 2 {
		o, c := toks[0].Text(src), toks[len(toks)-1].Text(src)
		if (o == "(" && c == ")") || (o == "[" && c == "]") {
			// (a) alone is one element either way; a call f(…) is not a list.
			toks = toks[1 : len(toks)-1]
		}
	}
	var out []prop
	r := &reader{src: src, toks: toks}
	for i := 0; i < len(toks); {
		j := r.valueEnd(i)
		if j > i {
			out = append(out, prop{toks: toks[i:j], start: toks[i].Start, end: toks[j-1].End})
		}
		i = j + 1
	}
	return out
}
