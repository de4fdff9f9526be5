package lsp

import (
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/project"
)

// maxCheckedModel bounds the work spent on one model file: a model whose
// text is larger (1 MB) is parsed for its header, so the project's DAG
// and its dependants stay whole, but its body is never bound, linted,
// formatted, tokenized or parsed for hover. It gets one informational
// diagnostic saying so. Without it, one generated 6 MB model (200,000
// select items) kept the checker busy for minutes and stalled every
// other file of the project.
const maxCheckedModel = 1 << 20

// tooBig reports whether the file's text is over the limit of a model.
func tooBig(f *file) bool { return f != nil && f.kind == modelFile && len(f.src) > maxCheckedModel }

// codeTooBig is the code of the diagnostic of a model over the limit.
const codeTooBig = "too_big_to_check"

// boundParse limits a parse to what a file of its size is worth: a model
// over maxCheckedModel keeps its header and gets a stand-in body that
// yields its declared columns (or none), so checking it costs nothing.
func boundParse(p *project.FileParse) *project.FileParse {
	if p == nil || p.Kind != modelFile || len(p.Src) <= maxCheckedModel || p.Model == nil {
		return p
	}
	m := *p.Model
	// The body is rendered from Source after BodyStart: the header keeps
	// its bytes (and so its positions), the body is the stand-in.
	m.Body = standInBody(m.Columns)
	if m.BodyStart >= 0 && m.BodyStart <= len(m.Source) {
		m.Source = append(append(make([]byte, 0, m.BodyStart+len(m.Body)), m.Source[:m.BodyStart]...), m.Body...)
	}
	m.Macros = nil
	n := *p
	n.Model = &m
	msg := fmt.Sprintf("%s is %.1f MB, over the %d MB the editor checks in one model: its body is not bound, linted or formatted here (`efmesh plan` checks it)", p.Rel, float64(len(p.Src))/(1<<20), maxCheckedModel>>20)
	if len(m.Columns) == 0 {
		msg += "; declare its columns (columns (...)) so its dependants are checked against them"
	}
	n.Diagnostics = append(append([]project.Diagnostic(nil), p.Diagnostics...), project.Diagnostic{
		File: p.Rel, Range: m.Header, Severity: project.SeverityInfo, Code: codeTooBig, Message: msg,
	})
	return &n
}

// standInBody is a body yielding the declared columns with no rows.
func standInBody(cols []project.Column) string {
	if len(cols) == 0 {
		return "SELECT 1 AS too_big_to_check WHERE false"
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "CAST(NULL AS %s) AS %q", c.Type, c.Name)
	}
	b.WriteString(" WHERE false")
	return b.String()
}
