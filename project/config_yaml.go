package project

// Reading efmesh.yaml's YAML nodes: the parser's state, positions of
// nodes and tokens, and the typed readers of scalars and mappings.

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

type configParser struct {
	file  string
	src   []byte
	li    *lineIndex
	diags []Diagnostic
	refs  []VarRef
}

// vars records the ${NAME} references of a setting's value with their
// positions, and reports malformed ones. The value is found in the file by
// its text: a reference is located where its "${" is written.
func (p *configParser) vars(v ast.Node, setting string) {
	start, end := p.nodeRange(v)
	text := string(p.src[start:end])
	for off := 0; ; {
		i := strings.Index(text[off:], "${")
		if i < 0 {
			return
		}
		i += off
		ref, n, err := parseVar(text[i:])
		if err != nil {
			p.diags = append(p.diags, Diagnostic{File: p.file, Range: p.li.rng(start+i, end), Severity: SeverityError,
				Code: CodeConfig, Message: fmt.Sprintf("%s: %v", setting, err)})
			return
		}
		p.refs = append(p.refs, VarRef{Setting: setting, Name: ref.name, Range: p.li.rng(start+i, start+i+n)})
		off = i + n
	}
}

func (p *configParser) errorf(n ast.Node, code, format string, args ...any) *Diagnostic {
	start, end := p.nodeRange(n)
	p.diags = append(p.diags, Diagnostic{
		File:     p.file,
		Range:    p.li.rng(start, end),
		Severity: SeverityError,
		Code:     code,
		Message:  fmt.Sprintf(format, args...),
	})
	return &p.diags[len(p.diags)-1]
}

// syntaxError turns a YAML parse error into a positioned diagnostic.
func (p *configParser) syntaxError(err error) {
	var se *yaml.SyntaxError
	if !errors.As(err, &se) || se.Token == nil || se.Token.Position == nil {
		p.diags = append(p.diags, NewDiagnostic(p.file, p.src, 0, 0, SeverityError, CodeConfig, "invalid YAML: "+err.Error()))
		return
	}
	start, end := p.tokenRange(se.Token.Position.Line, se.Token.Position.Column, strings.TrimSpace(se.Token.Value))
	p.diags = append(p.diags, Diagnostic{
		File:     p.file,
		Range:    p.li.rng(start, end),
		Severity: SeverityError,
		Code:     CodeConfig,
		Message:  "invalid YAML: " + se.Message,
	})
}

// tokenRange locates a token from the YAML parser's line and column (which
// count characters, as ours do; its Offset does not count bytes, so it is
// not used). The end covers the token's text when it is found there, else
// the rest of the line.
func (p *configParser) tokenRange(line, col int, text string) (start, end int) {
	start = p.li.offsetOf(line, max(col, 1))
	if start >= len(p.src) {
		return start, start
	}
	switch c := p.src[start]; {
	case c == '"' || c == '\'':
		return start, quotedYAMLEnd(p.src, start)
	case text != "" && strings.HasPrefix(string(p.src[start:]), text) && !strings.Contains(text, "\n"):
		return start, start + len(text)
	}
	end = start
	for end < len(p.src) && p.src[end] != '\n' {
		end++
	}
	for end > start && isSpaceByte(p.src[end-1]) {
		end--
	}
	return start, end
}

// quotedYAMLEnd returns the end of the YAML quoted scalar at src[i]: ”
// escapes a single quote, a backslash escapes in double quotes.
func quotedYAMLEnd(src []byte, i int) int {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch {
		case q == '"' && src[j] == '\\':
			j++
		case src[j] == q:
			if q == '\'' && j+1 < len(src) && src[j+1] == '\'' {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(src)
}

// nodeRange is the byte range of a node's first token: the scalar for a
// scalar, the key of the first entry of a block mapping.
func (p *configParser) nodeRange(n ast.Node) (int, int) {
	switch v := n.(type) {
	case *ast.MappingNode:
		if !v.IsFlowStyle && len(v.Values) > 0 {
			return p.nodeRange(v.Values[0].Key)
		}
	case *ast.MappingValueNode:
		return p.nodeRange(v.Key)
	case *ast.DocumentNode:
		if v.Start != nil {
			return p.tokenRange(v.Start.Position.Line, v.Start.Position.Column, v.Start.Value)
		}
		if v.Body != nil {
			return p.nodeRange(v.Body)
		}
	case *ast.TagNode:
		if v.Start != nil {
			return p.tokenRange(v.Start.Position.Line, v.Start.Position.Column, v.Start.Value)
		}
	case *ast.LiteralNode:
		if v.Start != nil {
			return p.tokenRange(v.Start.Position.Line, v.Start.Position.Column, v.Start.Value)
		}
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return 0, 0
	}
	return p.tokenRange(tk.Position.Line, tk.Position.Column, tk.Value)
}

// unwrap looks through tags and anchors to the value they decorate.
func unwrap(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		default:
			return n
		}
	}
}

func isNull(n ast.Node) bool {
	if n == nil {
		return true
	}
	_, ok := n.(*ast.NullNode)
	return ok
}

// entries returns the key/value pairs of a mapping node.
func entries(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch v := n.(type) {
	case *ast.MappingNode:
		return v.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, true
	}
	return nil, false
}

// keyString is the text of a mapping key.
func keyString(k ast.MapKeyNode) string {
	if s, ok := unwrap(k).(*ast.StringNode); ok {
		return s.Value
	}
	if tk := k.GetToken(); tk != nil {
		return tk.Value
	}
	return ""
}

// fields checks that n is a mapping whose keys are all known and calls each
// for every key with a non-null value.
func (p *configParser) fields(n ast.Node, where string, known []string, each func(key string, v ast.Node)) {
	n = unwrap(n)
	if isNull(n) {
		return
	}
	es, ok := entries(n)
	if !ok {
		p.errorf(n, CodeConfig, "%s must be a mapping of %s, found %s", where, strings.Join(known, ", "), describeNode(n))
		return
	}
	for _, e := range es {
		key := keyString(e.Key)
		if !slices.Contains(known, key) {
			d := p.errorf(e.Key, CodeConfigUnknown, "unknown key %q in %s (known: %s)", key, where, strings.Join(known, ", "))
			if s, ok := DidYouMean(key, known); ok {
				start, end := p.nodeRange(e.Key)
				d.Fixes = []Fix{{Title: "Change to " + s, Edits: []TextEdit{{File: p.file, Start: start, End: end, NewText: s}}}}
			}
			continue
		}
		if v := unwrap(e.Value); !isNull(v) {
			each(key, v)
		}
	}
}

// str reads a scalar as a string. Numbers are taken as written (a name may
// well be 2026); booleans, nulls and collections are type errors.
func (p *configParser) str(n ast.Node, what string) (string, bool) {
	switch v := unwrap(n).(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		return strings.TrimRight(v.Value.Value, "\n"), true
	case *ast.IntegerNode, *ast.FloatNode:
		return v.GetToken().Value, true
	}
	p.errorf(n, CodeConfig, "%s must be a string, found %s", what, describeNode(n))
	return "", false
}

func (p *configParser) boolean(n ast.Node, what string) (bool, bool) {
	if b, ok := unwrap(n).(*ast.BoolNode); ok {
		return b.Value, true
	}
	p.errorf(n, CodeConfig, "%s must be true or false, found %s", what, describeNode(n))
	return false, false
}

// describeNode names a YAML value's type for messages.
func describeNode(n ast.Node) string {
	switch v := unwrap(n).(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.BoolNode:
		return "a boolean"
	case *ast.IntegerNode, *ast.FloatNode:
		return "a number"
	case *ast.NullNode:
		return "null"
	case *ast.AliasNode:
		return "an alias (not supported here)"
	case *ast.StringNode:
		return strconv.Quote(v.Value)
	}
	return "a " + n.Type().String()
}
