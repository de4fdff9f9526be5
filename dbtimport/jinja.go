package dbtimport

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// A tag is one Jinja construct of a dbt model: {{ expression }},
// {% statement %} or {# comment #}, with its byte range in the file.
type tag struct {
	kind       byte // '{' expression, '%' statement, '#' comment
	start, end int  // [start, end) in the source, delimiters included
	inner      string
	closed     bool // false: no closing delimiter before the end of the text
}

// scanTags finds the Jinja tags of src in order. An opening delimiter without
// its closing one is a tag that runs to the end of the text (reported, not
// converted). Quotes inside a tag are honoured, so '}}' in a string does
// not close it.
func scanTags(src string) []tag {
	var tags []tag
	for i := 0; i+1 < len(src); i++ {
		if src[i] != '{' {
			continue
		}
		k := src[i+1]
		if k != '{' && k != '%' && k != '#' {
			continue
		}
		closer := "}}"
		if k != '{' {
			closer = string(k) + "}"
		}
		end, inner := len(src), src[i+2:] // unterminated: to the end
		quote, closed := byte(0), false
		for j := i + 2; j < len(src); j++ {
			c := src[j]
			if quote != 0 {
				if c == quote {
					quote = 0
				}
				continue
			}
			if k != '#' && (c == '\'' || c == '"') {
				quote = c
				continue
			}
			if strings.HasPrefix(src[j:], closer) {
				end, inner, closed = j+2, src[i+2:j], true
				break
			}
		}
		inner = strings.TrimSpace(strings.Trim(inner, "-+"))
		tags = append(tags, tag{kind: k, start: i, end: end, inner: inner, closed: closed})
		i = end - 1
	}
	return tags
}

var (
	reRef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^ref\(\s*(?:(['"])([\w.-]+)(['"])\s*,\s*)?(['"])(\w+)(['"])\s*(?:,\s*v(?:ersion)?\s*=\s*\S+\s*)?\)$`)
	})
	reSource = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^source\(\s*(['"])(\w+)(['"])\s*,\s*(['"])(\w+)(['"])\s*\)$`)
	})
	reVar     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^var\(\s*(['"])(\w+)(['"])\s*(?:,\s*(.+?)\s*)?\)$`) })
	reConfig  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)^config\((.*)\)$`) })
	reIfIncr  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^if\s+is_incremental\(\)$`) })
	reIf      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^if\b`) })
	reEndif   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^endif$`) })
	reTimeFlt = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?is)^\s*(where|and)\s+((?:\w+\.)?(\w+))\s*>=?\s*\(\s*select\s+max\s*\(\s*\w+\s*\)\s+from\s+\{\{-?\s*this\s*-?\}\}\s*\)\s*$`)
	})
)

// body is what converting one dbt model's text gives: the efmesh body,
// what the config() call and the is_incremental() block said, and the
// pieces it could not convert.
type body struct {
	sql     string
	config  map[string]any
	cfgAt   int    // offset of the config() call, -1 without one
	timeCol string // the column of a recognised is_incremental() filter
	incrAt  int    // offset of the is_incremental() block, -1 without one
	refs    []string
	vars    map[string]string // var name → default given in var('x', default)
	varAt   map[string]Piece  // var name → its first use
	pieces  []Piece
}

// resolver answers what a dbt name stands for in the efmesh project.
type resolver struct {
	model  func(name string) (string, bool)       // ref('x') → schema.x
	source func(src, table string) (string, bool) // source('s','t') → s.t
}

// convertBody rewrites the Jinja of a dbt model into efmesh macros. Every
// tag it does not recognise is kept as a SQL comment and listed, with its
// position, in the result's pieces; nothing is guessed.
func convertBody(file, src string, r resolver) body {
	b := body{cfgAt: -1, incrAt: -1, vars: map[string]string{}, varAt: map[string]Piece{}}
	tags := scanTags(src)
	var out strings.Builder
	last := 0
	keep := func(t tag, why string) {
		line, col := position(src, t.start)
		b.pieces = append(b.pieces, Piece{File: file, Line: line, Col: col, Text: src[t.start:t.end], Reason: why})
		out.WriteString("/* efmesh: not converted: " + strings.ReplaceAll(src[t.start:t.end], "*/", "* /") + " */")
	}
	for i := 0; i < len(tags); i++ {
		t := tags[i]
		out.WriteString(src[last:t.start])
		last = t.end
		if !t.closed {
			keep(t, "Jinja tag without its closing delimiter")
			continue
		}
		if t.kind == '#' {
			out.WriteString("/* " + strings.ReplaceAll(t.inner, "*/", "* /") + " */")
			continue
		}
		if t.kind == '{' {
			switch {
			case t.inner == "this":
				out.WriteString("@this")
			case reRef().MatchString(t.inner):
				m := reRef().FindStringSubmatch(t.inner)
				name, ok := r.model(m[5])
				if !ok {
					keep(t, fmt.Sprintf("ref to %q, which is not a model of this dbt project", m[5]))
					continue
				}
				b.refs = append(b.refs, name)
				out.WriteString("@ref(" + name + ")")
			case reSource().MatchString(t.inner):
				m := reSource().FindStringSubmatch(t.inner)
				name, ok := r.source(m[2], m[5])
				if !ok {
					keep(t, fmt.Sprintf("source %q.%q is not declared in the project's YAML", m[2], m[5]))
					continue
				}
				b.refs = append(b.refs, name)
				out.WriteString("@ref(" + name + ")")
			case reVar().MatchString(t.inner):
				m := reVar().FindStringSubmatch(t.inner)
				name := strings.ToLower(m[2])
				if _, seen := b.varAt[name]; !seen {
					line, col := position(src, t.start)
					b.varAt[name] = Piece{File: file, Line: line, Col: col, Text: src[t.start:t.end]}
				}
				if _, seen := b.vars[name]; !seen || m[4] != "" {
					b.vars[name] = unquote(m[4])
				}
				// @var renders a string literal: a var quoted in the SQL
				// ('{{ var("x") }}') loses its quotes.
				s := out.String()
				if strings.HasSuffix(s, "'") && strings.HasPrefix(src[t.end:], "'") {
					out.Reset()
					out.WriteString(s[:len(s)-1])
					last++
				}
				out.WriteString("@var(" + name + ")")
			case reConfig().MatchString(t.inner) && b.cfgAt < 0:
				cfg, err := parseKwargs(reConfig().FindStringSubmatch(t.inner)[1])
				if err != nil {
					keep(t, "config(): "+err.Error())
					continue
				}
				b.config, b.cfgAt = cfg, t.start
				// the header carries it; the body drops the call and the
				// line break after it
				if strings.HasPrefix(src[last:], "\n") {
					last++
				}
			default:
				keep(t, "Jinja expression efmesh has no equivalent for (a macro call, a variable or an adapter call)")
			}
			continue
		}
		// A statement: only {% if is_incremental() %} … {% endif %} is known.
		if reIfIncr().MatchString(t.inner) && b.incrAt < 0 {
			if j := matchingEndif(tags, i); j > 0 {
				inside := src[t.end:tags[j].start]
				if m := reTimeFlt().FindStringSubmatch(inside); m != nil {
					b.timeCol, b.incrAt = strings.ToLower(m[3]), t.start
					out.WriteString(m[1] + " " + m[2] + " >= @start AND " + m[2] + " < @end")
					last = tags[j].end
					i = j
					continue
				}
				// Kept as a comment and reported; with a unique key the
				// model drops the report (efmesh merges the whole query,
				// so the block was only dbt's optimisation).
				b.incrAt = t.start
				line, col := position(src, t.start)
				b.pieces = append(b.pieces, Piece{File: file, Line: line, Col: col, Text: src[t.start:tags[j].end],
					Reason: "is_incremental() block without a recognisable timestamp filter (WHERE col > (SELECT max(col) FROM {{ this }}))", incremental: true})
				out.WriteString("/* efmesh: not converted: " + strings.ReplaceAll(src[t.start:tags[j].end], "*/", "* /") + " */")
				last = tags[j].end
				i = j
				continue
			}
		}
		keep(t, "Jinja statement efmesh has no equivalent for (control flow, set, macro or call blocks)")
	}
	out.WriteString(src[last:])
	b.sql = strings.TrimSpace(out.String())
	return b
}

// matchingEndif is the index of the {% endif %} closing the {% if %} at
// tags[i], or -1.
func matchingEndif(tags []tag, i int) int {
	depth := 0
	for j := i; j < len(tags); j++ {
		if tags[j].kind != '%' {
			continue
		}
		switch {
		case reIf().MatchString(tags[j].inner):
			depth++
		case reEndif().MatchString(tags[j].inner):
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// position is the 1-based line and byte column of offset in src.
func position(src string, offset int) (line, col int) {
	line = 1 + strings.Count(src[:offset], "\n")
	return line, offset - strings.LastIndex(src[:offset], "\n")
}

// parseKwargs reads the keyword arguments of a config() call: strings,
// numbers, booleans and lists of strings. Anything else is an error, so the
// call is reported instead of half-read.
func parseKwargs(s string) (map[string]any, error) {
	out := map[string]any{}
	s = strings.TrimSpace(s)
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return nil, fmt.Errorf("%q is not a keyword argument", s)
		}
		key := strings.TrimSpace(s[:eq])
		if !regexp.MustCompile(`^\w+$`).MatchString(key) {
			return nil, fmt.Errorf("%q is not a keyword argument", key)
		}
		s = strings.TrimSpace(s[eq+1:])
		v, rest, err := literal(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", key, err)
		}
		out[key] = v
		s = strings.TrimSpace(rest)
		if strings.HasPrefix(s, ",") {
			s = strings.TrimSpace(s[1:])
		} else if s != "" {
			return nil, fmt.Errorf("unexpected %q after %s", s, key)
		}
	}
	return out, nil
}

// literal reads one Python-ish literal at the start of s.
func literal(s string) (any, string, error) {
	switch {
	case s == "":
		return nil, "", fmt.Errorf("a value is missing")
	case s[0] == '\'' || s[0] == '"':
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 {
			return nil, "", fmt.Errorf("unterminated string")
		}
		return s[1 : end+1], s[end+2:], nil
	case s[0] == '[':
		var list []string
		rest := strings.TrimSpace(s[1:])
		for !strings.HasPrefix(rest, "]") {
			v, r, err := literal(rest)
			if err != nil {
				return nil, "", err
			}
			str, ok := v.(string)
			if !ok {
				return nil, "", fmt.Errorf("only lists of strings are read")
			}
			list = append(list, str)
			rest = strings.TrimSpace(r)
			if strings.HasPrefix(rest, ",") {
				rest = strings.TrimSpace(rest[1:])
			} else if !strings.HasPrefix(rest, "]") {
				return nil, "", fmt.Errorf("unterminated list")
			}
		}
		return list, rest[1:], nil
	}
	m := regexp.MustCompile(`^(true|false|True|False|-?\d+(?:\.\d+)?)`).FindString(s)
	if m == "" {
		return nil, "", fmt.Errorf("%q is not a literal efmesh reads (a string, number, boolean or list of strings)", firstWord(s))
	}
	switch strings.ToLower(m) {
	case "true":
		return true, s[len(m):], nil
	case "false":
		return false, s[len(m):], nil
	}
	return m, s[len(m):], nil
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " ,)"); i > 0 {
		return s[:i]
	}
	return s
}

func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}
