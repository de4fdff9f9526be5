package project

import (
	"bytes"
	"fmt"
	"strings"
)

// WithColumns returns m's file with its header's columns property set to
// cols (Name and Type; the type as the engine names it): an existing
// columns value is replaced in place, else a columns property is added
// after the last property, on a line of its own when the header has its
// properties on lines of their own. Every other byte of the file — other
// properties, comments, the body — is kept. A value written one column
// a line stays one column a line. The result is parsed again, and an
// error is returned when it would not declare exactly cols.
func WithColumns(m *Model, cols []Column) ([]byte, error) {
	if len(cols) == 0 {
		return nil, fmt.Errorf("%s: no columns to write", m.File)
	}
	if len(m.Properties) == 0 {
		return nil, fmt.Errorf("%s: the model has no MODEL (…) header to write columns into", m.File)
	}
	src := m.Source
	var out []byte
	if p, ok := m.Property("columns"); ok {
		vs, ve := p.ValueRange.Start.Offset, p.ValueRange.End.Offset
		value := columnsValue(cols, "")
		if bytes.IndexByte(src[vs:ve], '\n') >= 0 && len(m.Columns) > 0 {
			first := m.Columns[0].Range.Start.Offset
			value = columnsValue(cols, lineIndent(src, first))
			// The closing parenthesis stays where it was: on its own line
			// or after the last column.
			if closing := lineIndent(src, ve-1); strings.TrimSpace(lineText(src, ve-1)) == ")" {
				value += "\n" + closing + ")"
			} else {
				value += ")"
			}
		}
		out = splice(src, vs, ve, value)
	} else {
		last := m.Properties[len(m.Properties)-1]
		end := last.Range.End.Offset
		at, comma := end, ","
		// A trailing comma after the last property is kept as it is.
		i := end
		for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		if i < len(src) && src[i] == ',' {
			at, comma = i+1, ""
		}
		eol := at
		for eol < len(src) && src[eol] != '\n' {
			eol++
		}
		rest := strings.TrimSpace(string(src[at:eol]))
		ownLines := last.Range.Start.Line != m.Header.Start.Line
		prop := "columns " + columnsValue(cols, "")
		switch {
		case !ownLines:
			out = splice(src, at, at, comma+" "+prop)
		case rest == "" || strings.HasPrefix(rest, "--"):
			// The new property goes on the next line, after any comment
			// closing the last property's line.
			out = splice(splice(src, eol, eol, "\n"+lineIndent(src, last.Range.Start.Offset)+prop), at, at, comma)
		default:
			out = splice(src, at, at, comma+"\n"+lineIndent(src, last.Range.Start.Offset)+prop)
		}
	}
	nm, diags := ParseModel(m.File, out)
	for _, d := range diags {
		if d.Severity == SeverityError {
			return nil, fmt.Errorf("%s: the columns written do not parse: %s", m.File, d.Message)
		}
	}
	if len(nm.Columns) != len(cols) {
		return nil, fmt.Errorf("%s: the columns written do not parse as written", m.File)
	}
	for i, c := range nm.Columns {
		if !strings.EqualFold(c.Name, cols[i].Name) || !strings.EqualFold(strings.ReplaceAll(c.Type, " ", ""), strings.ReplaceAll(cols[i].Type, " ", "")) {
			return nil, fmt.Errorf("%s: column %s reads back as %s %s", m.File, cols[i].Name, c.Name, c.Type)
		}
	}
	return out, nil
}

// columnsValue writes cols as a columns value: on one line when indent is
// empty, else one column a line, each after indent (the caller closes).
func columnsValue(cols []Column, indent string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = columnName(c.Name) + " " + c.Type
	}
	if indent == "" {
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return "(\n" + indent + strings.Join(parts, ",\n"+indent)
}

// columnName quotes a column name that is not a plain identifier.
func columnName(n string) string {
	plain := n != ""
	for i, r := range n {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
		}
	}
	if plain {
		return n
	}
	return `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
}

// lineIndent is the run of spaces and tabs starting the line holding off.
func lineIndent(src []byte, off int) string {
	s := off
	for s > 0 && src[s-1] != '\n' {
		s--
	}
	e := s
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	return string(src[s:e])
}

// lineText is the text before off on its line, through off.
func lineText(src []byte, off int) string {
	s := off
	for s > 0 && src[s-1] != '\n' {
		s--
	}
	return string(src[s : off+1])
}

func splice(src []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(text))
	out = append(out, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}
