package project

import (
	"slices"
	"strings"
)

// The MODEL header's properties: the table of parsers, the dispatch of one
// "name value" entry, and the parser of each property but kind and audits.

// propertyNames are the MODEL header properties, in documentation order.
var propertyNames = []string{
	"name", "kind", "interval", "start", "cron", "grain", "columns",
	"audits", "target", "description", "owner", "tags",
	"answerable", "caveats", "redact", "export", "freshness",
}

// PropertyNames lists the MODEL header properties, for completion.
func PropertyNames() []string { return slices.Clone(propertyNames) }

type propertyParser func(p *headerParser, name token, c *cursor) bool

var propertyParsers map[string]propertyParser

func init() {
	// Assigned in init: the parsers refer to the parser type, whose methods
	// reach back to this table.
	propertyParsers = map[string]propertyParser{
		"name":        (*headerParser).parseName,
		"kind":        (*headerParser).parseKind,
		"interval":    (*headerParser).parseInterval,
		"start":       (*headerParser).parseStart,
		"cron":        (*headerParser).parseCron,
		"grain":       (*headerParser).parseGrain,
		"columns":     (*headerParser).parseColumns,
		"audits":      (*headerParser).parseAudits,
		"target":      (*headerParser).parseTarget,
		"description": (*headerParser).parseDescription,
		"owner":       (*headerParser).parseOwner,
		"tags":        (*headerParser).parseTags,
		"answerable":  (*headerParser).parseAnswerable,
		"caveats":     (*headerParser).parseCaveats,
		"redact":      (*headerParser).parseRedact,
		"export":      (*headerParser).parseExport,
		"freshness":   (*headerParser).parseFreshness,
	}
}

// property parses one "name value" entry of the header.
func (p *headerParser) property(toks []token) {
	nameTok := toks[0]
	if nameTok.kind != tokIdent || nameTok.quoted || nameTok.parts != 1 {
		p.errorf(nameTok.start, nameTok.end, CodeHeaderSyntax, "expected a property name, found %s", p.describe(nameTok))
		return
	}
	name := strings.ToLower(nameTok.val)
	parse, ok := propertyParsers[name]
	if !ok {
		p.unknownName(nameTok, "property", propertyNames)
		return
	}
	value := toks[1:]
	vs, ve := nameTok.end, nameTok.end
	if len(value) > 0 {
		vs, ve = span(value)
	}
	if first, dup := p.seen.get(name); dup {
		p.errorf(nameTok.start, nameTok.end, CodeDuplicateProperty, "duplicate property %s (first set on line %d)", name, p.li.pos(first.start).Line)
		return
	}
	p.seen.set(name, nameTok)
	p.m.Properties = append(p.m.Properties, Property{
		Name:       name,
		Range:      p.rng(nameTok.start, ve),
		ValueRange: p.rng(vs, ve),
	})
	if len(value) == 0 {
		p.errorf(nameTok.start, nameTok.end, CodeHeaderSyntax, "property %s needs a value", name)
		return
	}
	c := newCursor(value, ve)
	if parse(p, nameTok, c) && !c.done() {
		s, e := span(c.rest())
		p.errorf(s, e, CodeHeaderSyntax, "unexpected %s after the %s value (properties are separated by commas)", p.describe(c.peek()), name)
	}
}

// unknownName reports an unknown property or option with the closest known
// name as a suggestion and a quick fix.
func (p *headerParser) unknownName(t token, what string, known []string) {
	word := strings.ToLower(t.val)
	d := p.diag(t.start, t.end, CodeUnknownProperty, "unknown %s %q", what, t.val)
	if s, ok := DidYouMean(word, known); ok {
		d.Message += "; did you mean " + s + "?"
		d.Fixes = []Fix{{
			Title: "Change to " + s,
			Edits: []TextEdit{{File: p.file, Start: t.start, End: t.end, NewText: s}},
		}}
	} else {
		d.Message += " (known: " + strings.Join(known, ", ") + ")"
	}
	p.add(d)
}

func (p *headerParser) parseName(_ token, c *cursor) bool {
	t := c.next()
	if t.kind != tokIdent {
		p.errorf(t.start, t.end, CodeBadValue, "name must be schema.table, found %s", p.describe(t))
		return false
	}
	p.m.NameRange = p.rng(t.start, t.end)
	// Model names are case-insensitive, as unquoted SQL identifiers are.
	name := strings.ToLower(t.val)
	parts := strings.Split(name, ".")
	if len(parts) != 2 {
		p.errorf(t.start, t.end, CodeBadValue, "model name %q must be schema.table", t.val)
		return true
	}
	for _, part := range parts {
		if !ValidNamePart(part) {
			p.errorf(t.start, t.end, CodeBadValue, "invalid model name %q: each part must start with a letter and hold only letters a-z (in either case), digits and _", t.val)
			return true
		}
	}
	if why := ReservedSchema(parts[0]); why != "" {
		p.errorf(t.start, min(t.end, t.start+len(parts[0])), CodeReservedName, "model schema %s cannot hold models: %s", parts[0], why)
	}
	p.m.Name, p.m.Schema, p.m.Table = name, parts[0], parts[1]
	return true
}

func (p *headerParser) parseInterval(_ token, c *cursor) bool {
	v, ok := p.keyword(c, "interval", "day", "hour")
	if ok {
		p.m.Interval = v
	}
	return ok
}

func (p *headerParser) parseStart(_ token, c *cursor) bool {
	t, ok := p.str(c, "start")
	if !ok {
		return false
	}
	if _, err := ParseTime(t.val); err != nil {
		p.errorf(t.start, t.end, CodeBadValue, "start %q is not a date: write 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS'", t.val)
		return true
	}
	p.m.Start = t.val
	return true
}

func (p *headerParser) parseCron(_ token, c *cursor) bool {
	t, ok := p.str(c, "cron")
	if !ok {
		return false
	}
	v := strings.TrimSpace(t.val)
	if _, err := ParseCron(v); err != nil {
		p.errorf(t.start, t.end, CodeBadValue, "cron %v", err)
		return true
	}
	p.m.Cron = v
	return true
}

func (p *headerParser) parseGrain(_ token, c *cursor) bool {
	cols, ok := p.nameList(c, "a column name", false)
	if ok {
		p.m.Grain = cols
	}
	return ok
}

func (p *headerParser) parseTags(_ token, c *cursor) bool {
	tags, ok := p.nameList(c, "a tag", true)
	if ok {
		p.m.Tags = tags
	}
	return ok
}

func (p *headerParser) parseTarget(_ token, c *cursor) bool {
	v, ok := p.keyword(c, "target", "table", "parquet", "ducklake")
	if ok {
		p.m.Target = v
	}
	return ok
}

func (p *headerParser) parseDescription(_ token, c *cursor) bool {
	t, ok := p.str(c, "description")
	if ok {
		p.m.Description = t.val
	}
	return ok
}

func (p *headerParser) parseOwner(_ token, c *cursor) bool {
	t, ok := p.str(c, "owner")
	if ok {
		p.m.Owner = t.val
	}
	return ok
}

func (p *headerParser) parseAnswerable(_ token, c *cursor) bool {
	v, ok := p.keyword(c, "answerable", Answerables...)
	if ok {
		p.m.Answerable = v
	}
	return ok
}

func (p *headerParser) parseRedact(_ token, c *cursor) bool {
	cols, ok := p.nameList(c, "a column name", false)
	if ok {
		for i := range cols {
			cols[i] = strings.ToLower(cols[i])
		}
		p.m.Redact = cols
	}
	return ok
}

// parseExport reads export (attach <name>, table <schema.table>).
func (p *headerParser) parseExport(name token, c *cursor) bool {
	open := c.peek()
	items, ok := p.group(c)
	if !ok {
		return false
	}
	ex := &Export{}
	for _, it := range items {
		key := it[0]
		if key.kind != tokIdent || key.parts != 1 || len(it) != 2 {
			s, e := span(it)
			p.errorf(s, e, CodeBadValue, "export takes attach <name> and table <schema.table>, found %s", p.describeSpan(it))
			continue
		}
		v := it[1]
		switch strings.ToLower(key.val) {
		case "attach":
			if v.kind != tokIdent || v.parts != 1 || !ValidNamePart(strings.ToLower(v.val)) {
				p.errorf(v.start, v.end, CodeBadValue, "attach must name an entry of attach: in %s, found %s", ConfigFile, p.describe(v))
				continue
			}
			ex.Attach = strings.ToLower(v.val)
		case "table":
			parts := strings.Split(strings.ToLower(v.val), ".")
			if v.kind != tokIdent || len(parts) != 2 || !ValidNamePart(parts[0]) || !ValidNamePart(parts[1]) {
				p.errorf(v.start, v.end, CodeBadValue, "table must be schema.table, found %s", p.describe(v))
				continue
			}
			ex.Schema, ex.Table = parts[0], parts[1]
		default:
			p.unknownName(key, "option of export", []string{"attach", "table"})
		}
	}
	if ex.Attach == "" || ex.Table == "" {
		p.errorf(name.start, open.end, CodeBadValue, "export needs attach and table: export (attach <name>, table <schema.table>)")
		return true
	}
	p.m.Export = ex
	return true
}

// parseCaveats reads caveats 'text' or caveats ('text', …).
func (p *headerParser) parseCaveats(_ token, c *cursor) bool {
	if !c.peek().isPunct("(") {
		t, ok := p.str(c, "a caveat")
		if ok {
			p.m.Caveats = []string{t.val}
		}
		return ok
	}
	items, ok := p.group(c)
	if !ok {
		return false
	}
	out := []string{}
	for _, it := range items {
		if len(it) != 1 || it[0].kind != tokString {
			s, e := span(it)
			p.errorf(s, e, CodeBadValue, "a caveat must be a 'quoted string', found %s", p.describeSpan(it))
			continue
		}
		out = append(out, it[0].val)
	}
	p.m.Caveats = out
	return true
}

func (p *headerParser) parseColumns(_ token, c *cursor) bool {
	if !c.peek().isPunct("(") {
		t := c.peek()
		p.errorf(t.start, t.end, CodeBadValue, "columns must be a list: columns (name TYPE, …)")
		return false
	}
	open := c.peek()
	items, ok := p.group(c)
	if !ok {
		return false
	}
	if len(items) == 0 {
		p.errorf(open.start, c.toks[c.i-1].end, CodeBadValue, "columns declares no column")
		return true
	}
	cols := []Column{}
	seen := map[string]bool{}
	for _, it := range items {
		s, e := span(it)
		nt := it[0]
		if nt.kind != tokIdent || nt.parts != 1 {
			p.errorf(nt.start, nt.end, CodeBadValue, "expected a column name, found %s", p.describe(nt))
			continue
		}
		if len(it) == 1 {
			p.errorf(s, e, CodeBadValue, "column %s needs a type: %s TYPE", nt.val, nt.val)
			continue
		}
		if tt := it[1]; tt.kind != tokIdent {
			p.errorf(tt.start, tt.end, CodeBadValue, "expected the type of column %s, found %s", nt.val, p.describe(tt))
			continue
		}
		key := strings.ToLower(nt.val)
		if seen[key] {
			p.errorf(nt.start, nt.end, CodeBadValue, "column %s is declared twice", nt.val)
			continue
		}
		seen[key] = true
		cols = append(cols, Column{Name: nt.val, Type: p.joinTokens(it[1:]), Range: p.rng(s, e)})
	}
	p.m.Columns = cols
	return true
}
