package sqlmeshimport

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/efmesh/efmesh/macro"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlscan"
)

// model converts one SQL model file.
func (c *converter) model(m *smModel) {
	src, rel := m.src, m.rel
	converted := true
	report := func(off int, text, reason string) {
		c.report(rel, src, off, text, reason)
		converted = false
	}
	var notes []string
	note := func(p prop, reason string) {
		text := p.name + " " + string(src[p.start:p.end])
		report(p.nameStart, text, reason)
		notes = append(notes, comment("efmesh: not converted: ", text))
	}

	kind, kindName := "VIEW", "VIEW" // sqlmesh's default kind
	var lines []string
	for _, p := range m.hdr.props {
		v := strings.TrimSpace(string(src[p.start:p.end]))
		switch p.name {
		case "name", "enabled":
		case "kind":
			k, name, ok := c.kind(m, p, report)
			if !ok {
				notes = append(notes, comment("efmesh: not converted: ", "kind "+v))
			}
			kind, kindName = k, name
		case "cron":
			s := scalar(src, p)
			if _, err := project.ParseCron(s); err != nil {
				note(p, "cron efmesh cannot read")
				continue
			}
			lines = append(lines, "cron "+sqlString(s))
		case "start":
			s := scalar(src, p)
			if _, err := project.ParseTime(s); err != nil {
				note(p, "start efmesh cannot read (write 'YYYY-MM-DD')")
				continue
			}
			lines = append(lines, "start "+sqlString(s))
		case "interval_unit":
			switch u := strings.ToLower(scalar(src, p)); u {
			case "day", "hour":
				lines = append(lines, "interval "+u)
			default:
				note(p, "interval efmesh has not (day, hour)")
			}
		case "grain", "grains":
			cols := list(src, p)
			for i, col := range cols {
				cols[i] = strings.Trim(col, "()")
			}
			lines = append(lines, "grain ("+strings.Join(cols, ", ")+")")
		case "owner":
			lines = append(lines, "owner "+sqlString(scalar(src, p)))
		case "description":
			lines = append(lines, "description "+sqlString(scalar(src, p)))
		case "tags":
			tags := list(src, p)
			for i, t := range tags {
				tags[i] = ident(strings.Trim(t, `'"`))
			}
			lines = append(lines, "tags ("+strings.Join(tags, ", ")+")")
		case "columns":
			lines = append(lines, "columns "+v)
		case "audits":
			if a := c.auditCalls(m, p, report); len(a) > 0 {
				lines = append(lines, "audits ("+strings.Join(a, ", ")+")")
			}
		case "dialect":
			if d := strings.ToLower(scalar(src, p)); d != c.engineType() {
				note(p, "dialect differs from the engine's ("+c.engineType()+"): efmesh runs the SQL as written, without translating it; check the body")
			}
		default:
			note(p, "property efmesh has no equivalent for")
		}
	}

	// The body: sqlmesh allows statements before and after the query.
	body, ok := c.body(m, kindName, report)
	if !ok {
		converted = false
	}

	var h strings.Builder
	fmt.Fprintf(&h, "-- Converted from sqlmesh %s\n", rel)
	if lead := strings.TrimSpace(string(src[:m.hdr.start])); lead != "" {
		h.WriteString(lead + "\n")
	}
	for _, n := range notes {
		h.WriteString(n)
	}
	fmt.Fprintf(&h, "MODEL (\n  name %s,\n  kind %s", m.name, kind)
	for _, l := range lines {
		h.WriteString(",\n  " + l)
	}
	h.WriteString("\n);\n")
	if body != "" {
		h.WriteString("\n" + body + "\n")
	}
	file := "models/" + strings.TrimPrefix(rel, "models/")
	c.emit(file, h.String())
	c.res.Models = append(c.res.Models, Model{Name: m.name, Kind: kindName, File: file, From: rel, Converted: converted})
}

func (c *converter) engineType() string {
	if strings.Contains(c.cfg.engine, "postgres") {
		return "postgres"
	}
	return "duckdb"
}

// kind maps a sqlmesh kind; ok is false when it is reported.
func (c *converter) kind(m *smModel, p prop, report func(int, string, string)) (text, name string, ok bool) {
	src := m.src
	name, opts := kindOf(src, p)
	opt := map[string]prop{}
	for _, o := range opts {
		opt[o.name] = o
	}
	val := func(n string) string { return scalar(src, opt[n]) }
	ok = true
	extra := func(known ...string) {
		for _, o := range opts {
			if !contains(known, o.name) {
				report(o.nameStart, o.name+" "+string(src[o.start:o.end]), "kind option efmesh has no equivalent for")
				ok = false
			}
		}
	}
	whole := strings.TrimSpace(string(src[p.start:p.end]))
	switch name {
	case "FULL", "VIEW", "EMBEDDED":
		extra()
		return name, name, ok
	case "INCREMENTAL_BY_TIME_RANGE":
		tc, has := opt["time_column"]
		if !has {
			report(p.start, whole, "INCREMENTAL_BY_TIME_RANGE without time_column")
			return "FULL", "FULL", false
		}
		col := list(src, tc)[0] // (c, 'format'): efmesh compares the column with @start/@end as written in the body
		k := "INCREMENTAL_BY_TIME_RANGE (time_column " + col
		if _, has := opt["batch_size"]; has {
			k += ", batch_size " + val("batch_size")
		}
		if _, has := opt["lookback"]; has {
			k += ", lookback " + val("lookback")
		}
		extra("time_column", "batch_size", "lookback", "batch_concurrency", "forward_only", "on_destructive_change", "on_additive_change", "disable_restatement")
		return k + ")", name, ok
	case "INCREMENTAL_BY_UNIQUE_KEY":
		key, has := opt["unique_key"]
		if !has {
			report(p.start, whole, "INCREMENTAL_BY_UNIQUE_KEY without unique_key")
			return "FULL", "FULL", false
		}
		extra("unique_key", "batch_size", "forward_only", "on_destructive_change", "on_additive_change", "disable_restatement")
		return "INCREMENTAL_BY_UNIQUE_KEY (key (" + strings.Join(list(src, key), ", ") + "))", name, ok
	case "SCD_TYPE_2", "SCD_TYPE_2_BY_TIME", "SCD_TYPE_2_BY_COLUMN":
		key, has := opt["unique_key"]
		if !has {
			report(p.start, whole, name+" without unique_key")
			return "FULL", "FULL", false
		}
		k := "SCD_TYPE_2 (key (" + strings.Join(list(src, key), ", ") + ")"
		if _, has := opt["valid_from_name"]; has {
			k += ", valid_from " + val("valid_from_name")
		}
		if _, has := opt["valid_to_name"]; has {
			k += ", valid_to " + val("valid_to_name")
		}
		k += ")"
		// efmesh's SCD_TYPE_2 compares every column and dates a version
		// by the build that saw it; it closes rows that vanished.
		fits := false
		if name == "SCD_TYPE_2_BY_COLUMN" {
			cols := list(src, opt["columns"])
			fits = len(cols) == 1 && cols[0] == "*" && strings.EqualFold(val("invalidate_hard_deletes"), "true")
			switch {
			case !(len(cols) == 1 && cols[0] == "*"):
				report(p.start, whole, "SCD_TYPE_2_BY_COLUMN over some columns: efmesh's SCD_TYPE_2 opens a version when any column changes; written as SCD_TYPE_2 (key …)")
			case !fits:
				report(p.start, whole, "sqlmesh keeps a row that vanished open (invalidate_hard_deletes false); efmesh's SCD_TYPE_2 closes it: written as SCD_TYPE_2 (key …)")
			}
		} else {
			report(p.start, whole, "sqlmesh dates each version by the row's "+orDefault(val("updated_at_name"), "updated_at")+" column; efmesh's SCD_TYPE_2 dates it by the build that saw the change: written as SCD_TYPE_2 (key …)")
		}
		if !fits {
			return k, "SCD_TYPE_2", false
		}
		extra("unique_key", "columns", "invalidate_hard_deletes", "valid_from_name", "valid_to_name", "forward_only", "disable_restatement")
		return k, "SCD_TYPE_2", ok
	case "SEED":
		path, has := opt["path"]
		if !has {
			report(p.start, whole, "SEED without path")
			return "FULL", "FULL", false
		}
		csv, err := c.seed(m, scalar(src, path))
		if err != nil {
			report(path.start, val("path"), err.Error())
			return "SEED (path " + sqlString(val("path")) + ")", name, false
		}
		extra("path", "batch_size") // batch_size only cuts sqlmesh's inserts
		return "SEED (path " + sqlString(csv) + ")", name, ok
	case "EXTERNAL":
		extra()
		return "EXTERNAL (table " + m.name + ")", name, ok
	}
	report(p.start, whole, "kind efmesh has not (CUSTOM, MANAGED, INCREMENTAL_BY_PARTITION, INCREMENTAL_UNMANAGED…): written as FULL")
	return "FULL", "FULL", false
}

// seed copies a seed's CSV file, named relative to its model file, to
// seeds/ in the efmesh project and returns its new path.
func (c *converter) seed(m *smModel, path string) (string, error) {
	abs := filepath.Join(c.from, filepath.Dir(m.rel), filepath.FromSlash(path))
	data, err := os.ReadFile(abs)
	if err != nil {
		return "", fmt.Errorf("seed file %s cannot be read", path)
	}
	rel := c.rel(abs)
	if strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("seed file %s is outside the project", path)
	}
	out := "seeds/" + strings.TrimPrefix(rel, "seeds/")
	if !c.written[out] {
		c.emit(out, string(data))
	}
	return out, nil
}

// body converts the statements after a model's header: the query (tables
// to @ref, sqlmesh's time variables to efmesh's), @DEF statements before
// it, AUDIT definitions after it (to audit files); anything else is left
// as a comment and reported.
func (c *converter) body(m *smModel, kind string, report func(int, string, string)) (string, bool) {
	src := m.src
	stmts := statements(src, m.hdr.end)
	if at, ok := hasJinja(src, m.hdr.end, len(src)); ok || (len(stmts) > 0 && stmts[0].kind == stmtJinja) {
		if !ok {
			at = stmts[0].start
		}
		report(at, "Jinja", "Jinja in a sqlmesh model: efmesh has no Jinja; rewrite the query with efmesh's macros")
		return comment("efmesh: not converted (Jinja): ", strings.TrimSpace(string(src[m.hdr.end:]))), false
	}
	var b strings.Builder
	ok := true
	query := -1
	defs := map[string]bool{}
	for i := 0; i < len(stmts); i++ {
		s := stmts[i]
		text := string(src[s.start:s.end])
		switch {
		case s.kind == stmtDef && query < 0:
			if a := defName(src, s); a != "" {
				defs[a] = true
			}
			b.WriteString(c.query(m, s, defs, report, &ok) + ";\n")
		case s.kind == stmtQuery && query < 0:
			query = i
			b.WriteString(c.query(m, s, defs, report, &ok))
		case s.kind == stmtAudit && i+1 < len(stmts) && stmts[i+1].kind == stmtQuery:
			i++ // read with the header (readModel); written to audits/
		default:
			where := "pre-statement"
			if query >= 0 {
				where = "post-statement"
			}
			report(s.start, text, where+": efmesh runs one query per model and no statements beside it")
			b.WriteString("\n" + comment("efmesh: not converted ("+where+"): ", text))
			ok = false
		}
	}
	if query < 0 && project.KindName(kind).HasBody() {
		report(m.hdr.end, "", "the model has no query efmesh can read")
		ok = false
	}
	return strings.TrimRight(b.String(), "\n"), ok
}

// defName is the name a @DEF(name, value) statement defines.
func defName(src []byte, s stmt) string {
	toks := sqlscan.Tokens(src[:s.end], s.start)
	if len(toks) >= 3 && toks[1].Text(src) == "(" && toks[2].Kind == sqlscan.Ident {
		return strings.ToLower(toks[2].Text(src))
	}
	return ""
}

// query converts one statement's text.
func (c *converter) query(m *smModel, s stmt, defs map[string]bool, report func(int, string, string), ok *bool) string {
	src := m.src
	var edits []edit
	for _, t := range tables(src, s.start, s.end) {
		n := strings.Join(lastParts(t.name), ".")
		if n == m.name {
			report(t.start, t.name, "the model reads its own previous rows: efmesh has no self-reference in a body (make it an INCREMENTAL_BY_TIME_RANGE or SCD_TYPE_2 instead)")
			*ok = false
			continue
		}
		if ref, found := c.resolve(t.name); found {
			edits = append(edits, edit{t.start, t.end, ref})
			continue
		}
		if !strings.Contains(t.name, ".") {
			continue // a CTE of an outer scope, or a table efmesh cannot tell
		}
		key := m.rel + "\x00" + n
		if py, isPy := c.python[n]; isPy && !c.reported[key] {
			c.reported[key] = true
			report(t.start, t.name, "reads the Python model "+n+" ("+py+"), which awaits a human: once it is a SQL model, this becomes @ref("+n+")")
			*ok = false
		} else if !c.reported[key] {
			c.reported[key] = true
			report(t.start, t.name, "EXTERNAL candidate: no model of the project; declare it in external_models.yaml with its columns, or write an EXTERNAL model (kind EXTERNAL (table "+n+"))")
			*ok = false
		}
	}
	for _, mc := range macros(src, s.start, s.end) {
		switch {
		case runVars[mc.name] != "":
			edits = append(edits, edit{mc.start, mc.end, runVars[mc.name]})
		case unsupportedVars[mc.name]:
			report(mc.start, "@"+mc.name, "sqlmesh variable efmesh has no equivalent for")
			*ok = false
		case mc.name == "var":
			if e, good := c.varCall(src, mc); good {
				edits = append(edits, e)
			} else {
				report(mc.start, "@"+mc.name, "@VAR whose variable is not in config.yaml's variables")
				*ok = false
			}
		case mc.name == "this_model":
			report(mc.start, "@this_model", "sqlmesh's @this_model is the model's own table; efmesh's is its name as text, and a body cannot read its own table")
			*ok = false
		case macro.IsBuiltin(mc.name), macro.IsPrimitive(mc.name), defs[mc.name]:
		default:
			report(mc.start, "@"+mc.name, "macro efmesh has not (a Python macro of the project, or one of sqlmesh's efmesh lacks): write it as MACRO "+mc.name+"(…) AS …; in macros/*.sql")
			*ok = false
		}
	}
	out := apply(string(src[:s.end]), shift(edits, 0))[s.start:]
	return out
}

// varCall rewrites @VAR('name') to efmesh's @var(name) when config.yaml
// defines the variable.
func (c *converter) varCall(src []byte, mc macroUse) (edit, bool) {
	toks := sqlscan.Tokens(src, mc.end)
	if len(toks) < 3 || toks[0].Text(src) != "(" || toks[1].Kind != sqlscan.String || toks[2].Text(src) != ")" {
		return edit{}, false
	}
	name := strings.ToLower(toks[1].Value(src))
	if _, ok := c.cfg.vars[name]; !ok {
		return edit{}, false
	}
	return edit{mc.start, toks[2].End, "@var(" + name + ")"}, true
}

func shift(edits []edit, d int) []edit {
	for i := range edits {
		edits[i].start += d
		edits[i].end += d
	}
	return edits
}

func lastParts(name string) []string {
	parts := strings.Split(name, ".")
	if len(parts) == 3 {
		return parts[1:]
	}
	return parts
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
