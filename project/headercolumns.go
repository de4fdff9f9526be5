package project

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/sqlscan"
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
		comments := valueComments(m, vs, ve)
		value := columnsValue(cols)
		if bytes.IndexByte(src[vs:ve], '\n') >= 0 || len(comments) > 0 {
			indent := lineIndent(src, p.Range.Start.Offset) + "  "
			if len(m.Columns) > 0 && m.Columns[0].Range.Start.Line != p.Range.Start.Line {
				indent = lineIndent(src, m.Columns[0].Range.Start.Offset)
			}
			value = columnsLines(cols, comments, indent)
			// The closing parenthesis stays where it was: on its own line
			// or after the last column.
			if closing := lineIndent(src, ve-1); strings.TrimSpace(lineText(src, ve-1)) == ")" {
				value += "\n" + closing + ")"
			} else if len(comments) > 0 {
				value += "\n" + lineIndent(src, p.Range.Start.Offset) + ")"
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
		prop := "columns " + columnsValue(cols)
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

// comment is a comment inside a columns value: its text and the column
// (lower case) it goes with — the one it follows on its line, else the
// one it precedes; "" when neither is declared.
type comment struct {
	text     string
	column   string
	trailing bool
}

// valueComments lists the comments in src[vs:ve], the columns value of
// m, in order.
func valueComments(m *Model, vs, ve int) []comment {
	src := m.Source
	var out []comment
	for i := vs; i < ve; i++ {
		var end int
		switch {
		case src[i] == '\'' || src[i] == '"':
			q := src[i]
			for i++; i < ve && src[i] != q; i++ {
			}
			continue
		case src[i] == '-' && i+1 < ve && src[i+1] == '-':
			end = i
			for end < ve && src[end] != '\n' {
				end++
			}
		case src[i] == '/' && i+1 < ve && src[i+1] == '*':
			e := bytes.Index(src[i+2:ve], []byte("*/"))
			if e < 0 {
				end = ve
			} else {
				end = i + 2 + e + 2
			}
		default:
			continue
		}
		c := comment{text: strings.TrimRight(string(src[i:end]), " \t\r")}
		line := PosAt(src, i).Line
		for _, col := range m.Columns {
			if col.Range.End.Offset <= i && col.Range.End.Line == line {
				c.column, c.trailing = strings.ToLower(col.Name), true
			}
		}
		if c.column == "" {
			for _, col := range m.Columns {
				if col.Range.Start.Offset >= end {
					c.column = strings.ToLower(col.Name)
					break
				}
			}
		}
		out = append(out, c)
		i = end - 1
	}
	return out
}

// columnsLines writes cols one a line after indent, each with the
// comments of the column of its name; comments of a column no longer
// there come last, each on a line of its own. The caller closes.
func columnsLines(cols []Column, comments []comment, indent string) string {
	var b strings.Builder
	b.WriteString("(")
	kept := map[string]bool{}
	for _, c := range cols {
		kept[strings.ToLower(c.Name)] = true
	}
	for i, c := range cols {
		name := strings.ToLower(c.Name)
		for _, cm := range comments {
			if cm.column == name && !cm.trailing {
				b.WriteString("\n" + indent + cm.text)
			}
		}
		b.WriteString("\n" + indent + columnName(c.Name) + " " + c.Type)
		if i < len(cols)-1 {
			b.WriteString(",")
		}
		for _, cm := range comments {
			if cm.column == name && cm.trailing {
				b.WriteString(" " + cm.text)
			}
		}
	}
	for _, cm := range comments {
		if !kept[cm.column] {
			b.WriteString("\n" + indent + cm.text)
		}
	}
	return b.String()
}

// columnsValue writes cols as a columns value on one line.
func columnsValue(cols []Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = columnName(c.Name) + " " + c.Type
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// columnName writes a column name as every writer of names does
// (sqlscan.WriteIdent): quoted unless plain lower case and not a keyword.
func columnName(n string) string { return sqlscan.WriteIdent(n) }

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
