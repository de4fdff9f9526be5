package project

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CodeDuplicateProperty marks a header property (or kind option) set twice.
const CodeDuplicateProperty = "duplicate-property"

// CodeReservedName marks a model schema efmesh's own names could collide
// with (ReservedSchema).
const CodeReservedName = "reserved-name"

// propertyNames are the MODEL header properties, in documentation order.
var propertyNames = []string{
	"name", "kind", "interval", "start", "cron", "grain", "columns",
	"audits", "target", "description", "owner", "tags",
	"answerable", "caveats", "redact", "export",
}

var kindNames = []string{
	string(KindFull), string(KindView), string(KindEmbedded),
	string(KindIncrementalByTimeRange), string(KindIncrementalByUniqueKey),
	string(KindSCDType2), string(KindSeed), string(KindExternal),
}

// builtinAudits maps each built-in audit to its arity, checked at parse time
// so a wrong call is an inline error rather than a failed run. Wrappers are
// handled separately.
var builtinAudits = map[string]struct {
	min, max int // max < 0: unbounded
	usage    string
}{
	"not_null":          {1, -1, "not_null(col, …)"},
	"unique":            {1, -1, "unique(col, …)"},
	"accepted":          {2, -1, "accepted(col, 'value', …)"},
	"assert_contiguous": {1, 1, "assert_contiguous(col)"},
	"assert_no_gaps":    {1, 2, "assert_no_gaps(col[, day|hour])"},
}

// auditWrappers wrap exactly one audit call and change how it runs.
var auditWrappers = []string{"warn", "per_interval", "whole"}

// ParseModel parses one model file: its MODEL (...) header, its body and the
// @-macros of the body. It never stops at the first problem: every problem
// in the file is returned, and the Model holds whatever could be parsed.
// Model.Body is always string(src[Model.BodyStart:]).
func ParseModel(file string, src []byte) (*Model, []Diagnostic) {
	p := &headerParser{
		file: file,
		src:  src,
		li:   newLineIndex(src),
		seen: map[string]token{},
		m: &Model{
			File:   file,
			Source: src,
			Kind:   Kind{Name: KindFull},
			Target: "table",
		},
	}
	m := p.m
	// Ranges of parts that are missing stay valid (empty, at the start),
	// so consumers never see line 0.
	m.Header = p.rng(0, 0)
	m.NameRange = m.Header
	hasHeader, headerEnd := p.parseHeader()
	if p.hasProps {
		p.finish()
	}

	bodyStart := headerEnd
	for bodyStart < len(src) && isSpaceByte(src[bodyStart]) {
		bodyStart++
	}
	m.BodyStart = bodyStart
	m.Body = string(src[bodyStart:])
	if hasHeader && !p.unclosed {
		p.checkBody(headerEnd)
	}

	macros, diags, open := scanMacros(file, src, p.li, bodyStart)
	m.Macros, m.OpenComment = macros, open
	p.diags = append(p.diags, diags...)
	SortDiagnostics(p.diags)
	return m, p.diags
}

type headerParser struct {
	file  string
	src   []byte
	li    *lineIndex
	m     *Model
	diags []Diagnostic

	seen     map[string]token // property name → its name token
	modelTok token            // the MODEL (or AUDIT) keyword
	closeTok token            // the token that ends the header: ')' or ';'
	unclosed bool             // the header's '(' was never closed
	hasProps bool             // the header has a property list to check
}

// property is the token run of one header property: its name and value.
type property struct {
	toks  []token
	comma token // the comma that ended it; zero for the last property
}

func (p *headerParser) errorf(start, end int, code, format string, args ...any) {
	p.add(p.diag(start, end, code, format, args...))
}

func (p *headerParser) diag(start, end int, code, format string, args ...any) Diagnostic {
	return Diagnostic{
		File:     p.file,
		Range:    p.li.rng(start, end),
		Severity: SeverityError,
		Code:     code,
		Message:  fmt.Sprintf(format, args...),
	}
}

func (p *headerParser) add(d Diagnostic) { p.diags = append(p.diags, d) }

func (p *headerParser) rng(start, end int) Range { return p.li.rng(start, end) }

// describe names a token for a message, quoting at most a few characters of
// it so a runaway value does not flood the editor.
func (p *headerParser) describe(t token) string {
	switch t.kind {
	case tokEOF:
		return "end of file"
	case tokIllegal:
		return t.val
	}
	return p.describeText(t.start, t.end)
}

// describeSpan names the tokens of a value for a message.
func (p *headerParser) describeSpan(toks []token) string {
	if len(toks) == 1 {
		return p.describe(toks[0])
	}
	s, e := span(toks)
	return p.describeText(s, e)
}

func (p *headerParser) describeText(start, end int) string {
	text := strings.Join(strings.Fields(string(p.src[start:end])), " ")
	if r := []rune(text); len(r) > 30 {
		text = string(r[:30]) + "…"
	}
	return strconv.Quote(text)
}

// parseHeader parses MODEL ( ... ) [;] and returns where the header ends.
// hasHeader is false when the file does not start with MODEL at all: then the
// whole file is the body.
func (p *headerParser) parseHeader() (hasHeader bool, end int) {
	return p.parseBlock("MODEL", "a model file", &p.m.Header, p.property)
}

// parseBlock parses KEYWORD ( property, … ) [;] — the header of a model or
// an audit file — handing each property's tokens to prop, and records the
// block's range in header. noun names the file kind in messages.
func (p *headerParser) parseBlock(keyword, noun string, header *Range, prop func([]token)) (hasHeader bool, end int) {
	lx := &lexer{src: p.src}
	first := lx.next()
	switch {
	case first.kind == tokIllegal:
		p.errorf(first.start, first.end, CodeHeaderSyntax, "%s", first.val)
		return false, 0
	case !first.is(keyword):
		s, e := first.start, first.end
		if first.kind == tokEOF {
			s, e = 0, 0
		}
		p.errorf(s, e, CodeHeaderMissing, "%s starts with a %s (...) header, found %s", noun, keyword, p.describe(first))
		return false, 0
	}
	p.modelTok = first
	open := lx.next()
	if !open.isPunct("(") {
		p.errorf(open.start, open.end, CodeHeaderSyntax, "expected ( after %s, found %s", keyword, p.describe(open))
		p.unclosed = true
		*header = p.rng(first.start, first.end)
		return true, first.end
	}

	p.hasProps = true

	// Split the header into properties at top-level commas. Each property's
	// tokens are parsed on their own, so a mistake in one never hides the
	// problems of the others.
	var props []property
	var cur []token
	depth := 0
	end = -1
	for end < 0 {
		t := lx.next()
		switch {
		case t.kind == tokIllegal:
			// The lexer ran to the end of the file: the header is lost, and
			// so is the property being read.
			p.errorf(t.start, t.end, CodeHeaderSyntax, "%s", t.val)
			p.unclosed = true
			cur = nil
			end = len(p.src)
		case t.kind == tokEOF:
			p.errorf(open.start, open.end, CodeHeaderSyntax, "%s ( is never closed: expected )", keyword)
			p.unclosed = true
			end = len(p.src)
		case t.isPunct(";"):
			p.errorf(t.start, t.end, CodeHeaderSyntax, "expected ) to close %s ( before ;", keyword)
			p.closeTok = t
			end = t.end
		case t.is("SELECT") || (t.is("WITH") && !nextIs(lx, "TIME")):
			// The body began before the header was closed (WITH TIME is a
			// type, as in TIMESTAMP WITH TIME ZONE). Recover so the body is
			// still scanned for refs.
			p.errorf(open.start, open.end, CodeHeaderSyntax, "%s ( is not closed before %s: expected )", keyword, strings.ToUpper(t.val))
			if len(cur) > 0 {
				p.closeTok = cur[len(cur)-1]
			} else {
				p.closeTok = open
			}
			end = t.start
		case t.isPunct(")") && depth == 0:
			p.closeTok = t
			end = t.end
			save := *lx
			if semi := lx.next(); semi.isPunct(";") {
				p.closeTok = semi
				end = semi.end
			} else {
				*lx = save
			}
		case t.isPunct(",") && depth == 0:
			props = append(props, property{toks: cur, comma: t})
			cur = nil
		default:
			switch {
			case t.isPunct("(") || t.isPunct("["):
				depth++
			case (t.isPunct(")") || t.isPunct("]")) && depth > 0:
				depth--
			}
			cur = append(cur, t)
		}
	}
	props = append(props, property{toks: cur})
	*header = p.rng(first.start, end)

	for i, pr := range props {
		if len(pr.toks) == 0 {
			// A trailing comma before ) is accepted, like in most SQL dialects'
			// lists; an empty slot elsewhere is a typo.
			if i < len(props)-1 {
				p.errorf(pr.comma.start, pr.comma.end, CodeHeaderSyntax, "expected a property before ,")
			}
			continue
		}
		prop(pr.toks)
	}
	return true, end
}

// nextIs reports whether the next token of lx is the keyword kw, without
// consuming it.
func nextIs(lx *lexer, kw string) bool {
	save := *lx
	t := lx.next()
	*lx = save
	return t.is(kw)
}

// cursor walks the tokens of one value.
type cursor struct {
	toks []token
	i    int
	end  int // offset used to position "missing" errors once toks run out
}

func newCursor(toks []token, end int) *cursor {
	if len(toks) > 0 {
		end = toks[len(toks)-1].end
	}
	return &cursor{toks: toks, end: end}
}

func (c *cursor) done() bool { return c.i >= len(c.toks) }

func (c *cursor) peek() token {
	if c.i < len(c.toks) {
		return c.toks[c.i]
	}
	return token{kind: tokEOF, start: c.end, end: c.end}
}

func (c *cursor) next() token {
	t := c.peek()
	if c.i < len(c.toks) {
		c.i++
	}
	return t
}

func (c *cursor) rest() []token { return c.toks[c.i:] }

// span returns the byte range covered by toks.
func span(toks []token) (start, end int) {
	if len(toks) == 0 {
		return 0, 0
	}
	return toks[0].start, toks[len(toks)-1].end
}

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
	if first, dup := p.seen[name]; dup {
		p.errorf(nameTok.start, nameTok.end, CodeDuplicateProperty, "duplicate property %s (first set on line %d)", name, p.li.pos(first.start).Line)
		return
	}
	p.seen[name] = nameTok
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

// --- values ----------------------------------------------------------------

// ident reads one undotted identifier (a column or a keyword-like value).
func (p *headerParser) ident(c *cursor, what string) (token, bool) {
	t := c.next()
	if t.kind != tokIdent || t.parts != 1 {
		p.errorf(t.start, t.end, CodeBadValue, "expected %s, found %s", what, p.describe(t))
		return t, false
	}
	return t, true
}

// keyword reads an identifier that must be one of choices (case-insensitive)
// and returns it lower-cased.
func (p *headerParser) keyword(c *cursor, what string, choices ...string) (string, bool) {
	t := c.next()
	if t.kind == tokIdent && t.parts == 1 && !t.quoted {
		v := strings.ToLower(t.val)
		if slices.Contains(choices, v) {
			return v, true
		}
	}
	p.errorf(t.start, t.end, CodeBadValue, "%s must be %s, found %s", what, strings.Join(choices, " or "), p.describe(t))
	return "", false
}

func (p *headerParser) str(c *cursor, what string) (token, bool) {
	t := c.next()
	if t.kind != tokString {
		p.errorf(t.start, t.end, CodeBadValue, "%s must be a 'quoted string', found %s", what, p.describe(t))
		return t, false
	}
	return t, true
}

// group parses "( item, item, … )" at the cursor and returns the items split
// at top-level commas. A trailing comma is accepted.
func (p *headerParser) group(c *cursor) (items [][]token, ok bool) {
	open := c.next()
	if !open.isPunct("(") {
		p.errorf(open.start, open.end, CodeHeaderSyntax, "expected (, found %s", p.describe(open))
		return nil, false
	}
	depth := 0
	var cur []token
	for !c.done() {
		t := c.next()
		switch {
		case t.isPunct(")") && depth == 0:
			if len(cur) > 0 {
				items = append(items, cur)
			}
			return items, true
		case t.isPunct(",") && depth == 0:
			if len(cur) == 0 {
				p.errorf(t.start, t.end, CodeHeaderSyntax, "expected a value before ,")
			} else {
				items = append(items, cur)
			}
			cur = nil
			continue
		case t.isPunct("(") || t.isPunct("["):
			depth++
		case (t.isPunct(")") || t.isPunct("]")) && depth > 0:
			depth--
		}
		cur = append(cur, t)
	}
	p.errorf(open.start, open.end, CodeHeaderSyntax, "this ( is never closed: expected )")
	return nil, false
}

// nameList parses "(a, b)" or a single "a" into identifier values. With
// strings, 'quoted' items are accepted too (tags).
func (p *headerParser) nameList(c *cursor, what string, allowStrings bool) ([]string, bool) {
	item := func(toks []token) (string, bool) {
		if len(toks) == 1 {
			t := toks[0]
			if t.kind == tokIdent && t.parts == 1 {
				return t.val, true
			}
			if allowStrings && t.kind == tokString {
				return t.val, true
			}
		}
		s, e := span(toks)
		p.errorf(s, e, CodeBadValue, "expected %s, found %s", what, p.describeSpan(toks))
		return "", false
	}
	if !c.peek().isPunct("(") {
		v, ok := item([]token{c.next()})
		if !ok {
			return nil, false
		}
		return []string{v}, true
	}
	items, ok := p.group(c)
	if !ok {
		return nil, false
	}
	out := []string{}
	for _, it := range items {
		if v, ok := item(it); ok {
			out = append(out, v)
		}
	}
	return out, true
}

// joinTokens renders tokens as written, with whitespace normalized: one
// space between words, none inside brackets or before commas. A type written
// as DECIMAL ( 10,2 ) reads DECIMAL(10, 2).
func (p *headerParser) joinTokens(toks []token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 {
			prev := toks[i-1]
			space := true
			switch {
			case t.kind == tokPunct && strings.Contains("),].", t.val):
				space = false
			case t.isPunct("(") || t.isPunct("["):
				space = prev.kind == tokPunct && prev.val == ","
			case prev.kind == tokPunct && strings.Contains("([.", prev.val):
				space = false
			}
			if space {
				b.WriteByte(' ')
			}
		}
		b.Write(p.src[t.start:t.end])
	}
	return b.String()
}

// --- properties --------------------------------------------------------------

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

// startLayouts are the accepted forms of a start date.
var startLayouts = []string{"2006-01-02", "2006-01-02 15:04:05", "2006-01-02T15:04:05"}

func parseStartValue(s string) bool {
	for _, l := range startLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return true
		}
	}
	return false
}

func (p *headerParser) parseStart(_ token, c *cursor) bool {
	t, ok := p.str(c, "start")
	if !ok {
		return false
	}
	if !parseStartValue(t.val) {
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

func (p *headerParser) parseAudits(_ token, c *cursor) bool {
	if !c.peek().isPunct("(") {
		// A single audit, without the list parentheses.
		call, _ := p.auditCall(c.rest())
		c.i = len(c.toks)
		if call != nil {
			p.m.Audits = append(p.m.Audits, *call)
		}
		return true
	}
	items, ok := p.group(c)
	if !ok {
		return false
	}
	for _, it := range items {
		if call, _ := p.auditCall(it); call != nil {
			p.m.Audits = append(p.m.Audits, *call)
		}
	}
	return true
}

// auditCall parses one audit entry: name or name(args). It returns the call
// when its syntax is sound, even if its arguments are wrong, so hover and
// the audit runner see what was meant; ok reports whether it is valid.
func (p *headerParser) auditCall(toks []token) (call *AuditCall, ok bool) {
	s, e := span(toks)
	nt := toks[0]
	if nt.kind != tokIdent || nt.parts != 1 || nt.quoted {
		p.errorf(nt.start, nt.end, CodeBadValue, "expected an audit name, found %s", p.describe(nt))
		return nil, false
	}
	call = &AuditCall{
		Name:  strings.ToLower(nt.val),
		Text:  p.joinTokens(toks),
		Range: p.rng(s, e),
	}
	var args [][]token
	if len(toks) > 1 {
		c := newCursor(toks[1:], e)
		if !c.peek().isPunct("(") {
			t := c.peek()
			p.errorf(t.start, t.end, CodeHeaderSyntax, "expected ( or , after audit %s, found %s", nt.val, p.describe(t))
			return nil, false
		}
		var good bool
		if args, good = p.group(c); !good {
			return nil, false
		}
		if !c.done() {
			rs, re := span(c.rest())
			p.errorf(rs, re, CodeHeaderSyntax, "unexpected %s after audit %s", p.describe(c.peek()), nt.val)
			return nil, false
		}
	}

	if slices.Contains(auditWrappers, call.Name) {
		if len(args) != 1 {
			p.errorf(s, e, CodeBadValue, "%s wraps exactly one audit: %s(unique(id))", call.Name, call.Name)
			return call, false
		}
		inner, ok := p.auditCall(args[0])
		call.Inner = inner
		return call, ok
	}

	for _, a := range args {
		call.Args = append(call.Args, p.argText(a))
	}
	b, builtin := builtinAudits[call.Name]
	if !builtin {
		return call, true // a custom audit from audits/*.sql
	}
	if len(args) < b.min || (b.max >= 0 && len(args) > b.max) {
		p.errorf(s, e, CodeBadValue, "wrong number of arguments to audit %s: write %s", call.Name, b.usage)
		return call, false
	}
	ok = true
	isCol := func(a []token) bool { return len(a) == 1 && a[0].kind == tokIdent && a[0].parts == 1 }
	for i, a := range args {
		as, ae := span(a)
		switch {
		case call.Name == "accepted" && i > 0:
			if len(a) != 1 || (a[0].kind != tokString && a[0].kind != tokNumber && !a[0].is("true") && !a[0].is("false")) {
				p.errorf(as, ae, CodeBadValue, "accepted values must be literals such as 'ICU' or 42, found %s", p.describeSpan(a))
				ok = false
			}
		case call.Name == "assert_no_gaps" && i == 1:
			if len(a) != 1 || !(a[0].is("day") || a[0].is("hour")) {
				p.errorf(as, ae, CodeBadValue, "the interval of assert_no_gaps must be day or hour, found %s", p.describeSpan(a))
				ok = false
			} else {
				call.Args[i] = strings.ToLower(call.Args[i])
			}
		case !isCol(a):
			p.errorf(as, ae, CodeBadValue, "audit %s expects a column name, found %s", call.Name, p.describeSpan(a))
			ok = false
		}
	}
	return call, ok
}

// argText is an audit argument as documented on AuditCall.Args: the value of
// a lone identifier or string, else the tokens as written.
func (p *headerParser) argText(toks []token) string {
	if len(toks) == 1 && (toks[0].kind == tokIdent || toks[0].kind == tokString) {
		return toks[0].val
	}
	return p.joinTokens(toks)
}

// --- kind --------------------------------------------------------------------

// option is one "name value" entry of a kind's argument list.
type option struct {
	name  string
	tok   token
	value []token
}

// kindOptions lists the options each kind accepts. EXTERNAL with files
// passes any other option through to the reader.
var kindOptions = map[KindName][]string{
	KindIncrementalByTimeRange: {"time_column", "batch_size", "lookback"},
	KindIncrementalByUniqueKey: {"key"},
	KindSCDType2:               {"key", "valid_from", "valid_to"},
	KindSeed:                   {"path"},
	KindExternal:               {"table", "files", "format"},
}

func (p *headerParser) parseKind(_ token, c *cursor) bool {
	t := c.next()
	if t.kind != tokIdent || t.parts != 1 || t.quoted {
		p.errorf(t.start, t.end, CodeBadValue, "expected a kind (%s), found %s", strings.Join(kindNames, ", "), p.describe(t))
		return false
	}
	name := strings.ToUpper(t.val)
	if !slices.Contains(kindNames, name) {
		d := p.diag(t.start, t.end, CodeBadValue, "unknown kind %s", t.val)
		if s, ok := DidYouMean(name, kindNames); ok {
			d.Message += "; did you mean " + s + "?"
			d.Fixes = []Fix{{Title: "Change to " + s, Edits: []TextEdit{{File: p.file, Start: t.start, End: t.end, NewText: s}}}}
		} else {
			d.Message += " (known: " + strings.Join(kindNames, ", ") + ")"
		}
		p.add(d)
		return false
	}
	k := Kind{Name: KindName(name)}

	var opts []option
	if c.peek().isPunct("(") {
		items, ok := p.group(c)
		if !ok {
			return false
		}
		seen := map[string]bool{}
		for _, it := range items {
			nt := it[0]
			if nt.kind != tokIdent || nt.parts != 1 || nt.quoted {
				p.errorf(nt.start, nt.end, CodeHeaderSyntax, "expected an option name, found %s", p.describe(nt))
				continue
			}
			o := option{name: strings.ToLower(nt.val), tok: nt, value: it[1:]}
			if seen[o.name] {
				p.errorf(nt.start, nt.end, CodeDuplicateProperty, "duplicate option %s", o.name)
				continue
			}
			seen[o.name] = true
			if len(o.value) == 0 {
				p.errorf(nt.start, nt.end, CodeHeaderSyntax, "option %s needs a value", o.name)
				continue
			}
			opts = append(opts, o)
		}
	}

	known := kindOptions[k.Name]
	has := map[string]option{}
	for _, o := range opts {
		switch {
		case slices.Contains(known, o.name):
			has[o.name] = o
			p.kindOption(&k, o)
		case k.Name == KindExternal:
			k.Options = append(k.Options, p.readerOption(o))
		case len(known) == 0:
			p.errorf(o.tok.start, o.tok.end, CodeUnknownProperty, "kind %s takes no options", k.Name)
		default:
			p.unknownName(o.tok, "option of "+string(k.Name)+"", known)
		}
	}

	missing := func(opt, example string) {
		p.errorf(t.start, t.end, CodeBadValue, "kind %s needs %s: %s (%s)", k.Name, opt, k.Name, example)
	}
	switch k.Name {
	case KindIncrementalByTimeRange:
		if _, ok := has["time_column"]; !ok {
			missing("time_column", "time_column <column>")
		}
	case KindIncrementalByUniqueKey:
		if _, ok := has["key"]; !ok {
			missing("key", "key (<column>, …)")
		}
	case KindSCDType2:
		if _, ok := has["key"]; !ok {
			missing("key", "key (<column>, …)")
		}
		if k.ValidFrom == "" {
			k.ValidFrom = "valid_from"
		}
		if k.ValidTo == "" {
			k.ValidTo = "valid_to"
		}
	case KindSeed:
		if _, ok := has["path"]; !ok {
			missing("path", "path 'seeds/<file>.csv'")
		}
	case KindExternal:
		table, hasTable := has["table"]
		files, hasFiles := has["files"]
		switch {
		case hasTable && hasFiles:
			later := files
			if files.tok.start < table.tok.start {
				later = table
			}
			p.errorf(later.tok.start, later.tok.end, CodeBadValue, "kind EXTERNAL takes either table or files, not both")
		case !hasTable && !hasFiles:
			missing("table or files", "table <schema.table> or files '<glob>'")
		case hasTable:
			if f, ok := has["format"]; ok {
				p.errorf(f.tok.start, f.tok.end, CodeBadValue, "format applies to files, not to table")
			}
			for _, o := range opts {
				if !slices.Contains(known, o.name) {
					p.errorf(o.tok.start, o.tok.end, CodeBadValue, "reader option %s applies to files, not to table", o.name)
				}
			}
		case hasFiles && k.Format == "" && k.Files != "":
			if f := formatOf(k.Files); f != "" {
				k.Format = f
			} else if _, ok := has["format"]; !ok {
				s, e := span(files.value)
				p.errorf(s, e, CodeBadValue, "cannot infer the format of %q from its extension: add format parquet, csv or json", k.Files)
			}
		}
	}
	p.m.Kind = k
	return true
}

// kindOption parses a known option of kind k into it.
func (p *headerParser) kindOption(k *Kind, o option) {
	c := newCursor(o.value, o.tok.end)
	ok := true
	switch o.name {
	case "time_column", "valid_from", "valid_to":
		var t token
		if t, ok = p.ident(c, o.name+" column"); ok {
			switch o.name {
			case "time_column":
				k.TimeColumn = t.val
			case "valid_from":
				k.ValidFrom = t.val
			case "valid_to":
				k.ValidTo = t.val
			}
		}
	case "batch_size", "lookback":
		t := c.next()
		n, err := strconv.Atoi(t.val)
		minimum := 1
		if o.name == "lookback" {
			minimum = 0
		}
		if t.kind != tokNumber || err != nil || n < minimum || len(o.value) != 1 {
			s, e := span(o.value)
			want := "a positive integer"
			if minimum == 0 {
				want = "a non-negative integer"
			}
			p.errorf(s, e, CodeBadValue, "%s must be %s, found %s", o.name, want, p.describeSpan(o.value))
			return
		}
		if o.name == "batch_size" {
			k.BatchSize = n
		} else {
			k.Lookback = n
		}
	case "key":
		var key []string
		if key, ok = p.nameList(c, "a key column", false); ok {
			if len(key) == 0 {
				s, e := span(o.value)
				p.errorf(s, e, CodeBadValue, "key needs at least one column")
				return
			}
			k.Key = key
		}
	case "path", "files":
		var t token
		if t, ok = p.str(c, o.name); ok {
			if strings.TrimSpace(t.val) == "" {
				p.errorf(t.start, t.end, CodeBadValue, "%s is empty", o.name)
				return
			}
			if o.name == "path" {
				k.Path = t.val
			} else {
				k.Files = t.val
			}
		}
	case "table":
		t := c.next()
		if t.kind != tokIdent {
			p.errorf(t.start, t.end, CodeBadValue, "table must be a table name such as raw.events, found %s", p.describe(t))
			return
		}
		k.Table = t.val
	case "format":
		var v string
		if v, ok = p.keyword(c, "format", "parquet", "csv", "json"); ok {
			k.Format = v
		}
	}
	if ok && !c.done() {
		s, e := span(c.rest())
		p.errorf(s, e, CodeHeaderSyntax, "unexpected %s after the %s value (options are separated by commas)", p.describe(c.peek()), o.name)
	}
}

// readerOption keeps an EXTERNAL files option for the reader as written.
func (p *headerParser) readerOption(o option) Option {
	if len(o.value) == 1 {
		t := o.value[0]
		switch t.kind {
		case tokString:
			return Option{Name: o.name, Value: t.val, IsString: true}
		case tokIdent:
			return Option{Name: o.name, Value: string(p.src[t.start:t.end])}
		}
	}
	return Option{Name: o.name, Value: p.joinTokens(o.value)}
}

// formatOf infers a reader format from a file name or glob, looking through
// a compression suffix.
func formatOf(files string) string {
	name := strings.ToLower(files)
	for _, z := range []string{".gz", ".gzip", ".zst", ".zstd"} {
		name = strings.TrimSuffix(name, z)
	}
	switch path.Ext(name) {
	case ".parquet":
		return "parquet"
	case ".csv", ".tsv":
		return "csv"
	case ".json", ".jsonl", ".ndjson":
		return "json"
	}
	return ""
}

// --- after the header ------------------------------------------------------

// finish applies defaults and the checks that span properties.
func (p *headerParser) finish() {
	m := p.m
	if _, ok := p.seen["name"]; !ok {
		p.errorf(p.modelTok.start, p.modelTok.end, CodeMissingProperty, "the MODEL header has no name: add name schema.table")
	}
	if m.Kind.Name == KindIncrementalByTimeRange && m.Interval == "" {
		m.Interval = "day"
	}
	if pr, ok := p.seen["redact"]; ok {
		// A redacted environment writes the model without these columns:
		// the columns that identify rows or intervals must stay.
		keep := map[string]string{strings.ToLower(m.Kind.TimeColumn): "the time column"}
		for _, k := range m.Kind.Key {
			keep[strings.ToLower(k)] = "a key column"
		}
		for _, g := range m.Grain {
			keep[strings.ToLower(g)] = "a grain column"
		}
		for _, col := range m.Redact {
			if why, ok := keep[col]; ok && col != "" {
				p.errorf(pr.start, pr.end, CodeBadValue, "cannot redact %s: it is %s of %s", col, why, m.Name)
			}
		}
		if m.Kind.Name == KindEmbedded {
			p.errorf(pr.start, pr.end, CodeBadValue, "redact applies to models with a relation of their own, not to EMBEDDED models (redact where it is used)")
		}
	}
}

// checkBody checks that the body agrees with the kind: SEED and EXTERNAL
// models have none, every other kind needs one.
func (p *headerParser) checkBody(from int) {
	lx := &lexer{src: p.src, pos: from}
	var first token
	for {
		first = lx.next()
		if !first.isPunct(";") {
			break
		}
	}
	empty := first.kind == tokEOF
	k := p.m.Kind.Name
	switch {
	case k.HasBody() && empty:
		p.errorf(p.closeTok.start, p.closeTok.end, CodeSyntax, "model has no SELECT body")
	case !k.HasBody() && !empty:
		end := len(p.src)
		for end > first.start && isSpaceByte(p.src[end-1]) {
			end--
		}
		what := "its rows come from path"
		if k == KindExternal {
			what = "it reads an existing table or files"
		}
		p.errorf(first.start, end, CodeSyntax, "a %s model has no SELECT body: %s", k, what)
	}
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// PropertyNames lists the MODEL header properties, for completion.
func PropertyNames() []string { return slices.Clone(propertyNames) }

// KindNames lists the model kinds, for completion.
func KindNames() []string { return slices.Clone(kindNames) }
