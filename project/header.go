package project

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// CodeDuplicateProperty marks a header property (or kind option) set twice.
const CodeDuplicateProperty = "duplicate-property"

// CodeReservedName marks a model schema efmesh's own names could collide
// with (ReservedSchema).
const CodeReservedName = "reserved-name"

// ParseModel parses one model file: its MODEL (...) header, its body and the
// @-macros of the body. It never stops at the first problem: every problem
// in the file is returned, and the Model holds whatever could be parsed.
// Model.Body is always string(src[Model.BodyStart:]).
func ParseModel(file string, src []byte) (*Model, []Diagnostic) {
	p := &headerParser{
		file: file,
		src:  src,
		li:   newLineIndex(src),
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

	// A body that calls macros is expanded when the project is assembled,
	// with the project's macros; what is wrong with its primitives (@ref…)
	// is said here all the same, and the expansion is scanned again.
	macros, diags, open, calls := scanMacrosOf(file, src, p.li, bodyStart, true)
	m.Macros, m.OpenComment, m.expand = macros, open, calls
	p.diags = append(p.diags, diags...)
	if hasHeader && headerHasMacros(src, headerEnd) {
		// A header value written as a macro is known once the project's
		// macros and variables are: the assembly parses the header again
		// from the expansion and says what is wrong with it then.
		m.expand, m.expandHeader, m.headerEnd = true, true, headerEnd
		p.diags = slices.DeleteFunc(p.diags, func(d Diagnostic) bool { return d.Range.Start.Offset < headerEnd })
	}
	SortDiagnostics(p.diags)
	return m, p.diags
}

type headerParser struct {
	file  string
	src   []byte
	li    *lineIndex
	m     *Model
	diags []Diagnostic

	seen     seenProps // property name → where its name is
	modelTok token     // the MODEL (or AUDIT) keyword
	closeTok token     // the token that ends the header: ')' or ';'
	unclosed bool      // the header's '(' was never closed
	hasProps bool      // the header has a property list to check
	freshCol token     // the column of freshness, checked against columns
}

// property is the token run of one header property: its name and value,
// toks[start:end] of the header's tokens.
type property struct {
	start, end int
	comma      token // the comma that ended it; zero for the last property
}

// seenProps are the properties (or options) already set, by lower-case
// name, in the order they came. A header sets a handful: a linear search
// beats hashing, and the first few live in the parser itself.
type seenProps struct {
	list []seenProp
	buf  [8]seenProp
}

// seenProp is a property set and the byte range of its name.
type seenProp struct {
	name       string
	start, end int
}

func (s *seenProps) get(name string) (seenProp, bool) {
	for _, e := range s.list {
		if e.name == name {
			return e, true
		}
	}
	return seenProp{}, false
}

func (s *seenProps) set(name string, t token) {
	for i := range s.list {
		if s.list[i].name == name {
			s.list[i].start, s.list[i].end = t.start, t.end
			return
		}
	}
	if s.list == nil {
		s.list = s.buf[:0]
	}
	s.list = append(s.list, seenProp{name, t.start, t.end})
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
	// All of the header's tokens go in one slice (most headers hold a few
	// dozen); a property is a run of it.
	var props []property
	buf := tokenBufs.Get().(*[]token)
	toks := (*buf)[:0]
	defer func() {
		// The parsers keep strings of tokens, never tokens.
		clear(toks)
		*buf = toks[:0]
		tokenBufs.Put(buf)
	}()
	cur := 0 // where the property being read starts in toks
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
			toks = toks[:cur]
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
			if len(toks) > cur {
				p.closeTok = toks[len(toks)-1]
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
			props = append(props, property{start: cur, end: len(toks), comma: t})
			cur = len(toks)
		default:
			switch {
			case t.isPunct("(") || t.isPunct("["):
				depth++
			case (t.isPunct(")") || t.isPunct("]")) && depth > 0:
				depth--
			}
			toks = append(toks, t)
		}
	}
	props = append(props, property{start: cur, end: len(toks)})
	*header = p.rng(first.start, end)

	for i, pr := range props {
		if pr.end == pr.start {
			// A trailing comma before ) is accepted, like in most SQL dialects'
			// lists; an empty slot elsewhere is a typo.
			if i < len(props)-1 {
				p.errorf(pr.comma.start, pr.comma.end, CodeHeaderSyntax, "expected a property before ,")
			}
			continue
		}
		prop(toks[pr.start:pr.end:pr.end])
	}
	return true, end
}

// tokenBufs holds the token slices of headers being parsed, so loading a
// project of many files does not allocate one per file.
var tokenBufs = sync.Pool{New: func() any { b := make([]token, 0, 64); return &b }}

// nextIs reports whether the next token of lx is the keyword kw, without
// consuming it.
func nextIs(lx *lexer, kw string) bool {
	save := *lx
	t := lx.next()
	*lx = save
	return t.is(kw)
}

// finish applies defaults and the checks that span properties.
func (p *headerParser) finish() {
	m := p.m
	if _, ok := p.seen.get("name"); !ok {
		p.errorf(p.modelTok.start, p.modelTok.end, CodeMissingProperty, "the MODEL header has no name: add name schema.table")
	}
	if m.Kind.Name == KindIncrementalByTimeRange && m.Interval == "" {
		m.Interval = "day"
	}
	if pr, ok := p.seen.get("freshness"); ok && m.Kind.Name != KindExternal {
		p.errorf(pr.start, pr.end, CodeBadValue, "freshness applies to EXTERNAL models (the sources efmesh reads and does not make), not to %s model", m.Kind.Name.WithArticle())
		m.Freshness = nil
	}
	if f := m.Freshness; f != nil && m.Columns != nil && !slices.ContainsFunc(m.Columns, func(c Column) bool { return strings.EqualFold(c.Name, f.Column) }) {
		names := make([]string, len(m.Columns))
		for i, c := range m.Columns {
			names[i] = c.Name
		}
		p.errorf(p.freshCol.start, p.freshCol.end, CodeBadValue, "freshness column %s is not a column of %s (it declares %s)", f.Column, m.Name, strings.Join(names, ", "))
		m.Freshness = nil
	}
	if pr, ok := p.seen.get("redact"); ok {
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
		p.errorf(first.start, end, CodeSyntax, "%s model has no SELECT body: %s", k.WithArticle(), what)
	}
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
