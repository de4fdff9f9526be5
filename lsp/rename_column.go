package lsp

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// renameAnnotation identifies the edits of a rename so clients that
// support change annotations show them for review before applying.
const renameAnnotation = "efmesh.rename"

// renameWorkspaceEdit is a WorkspaceEdit carrying the same edits twice:
// as plain changes for clients without documentChanges, and as annotated
// text document edits (LSP 3.16) that clients preview. A client that
// reads documentChanges ignores changes.
type renameWorkspaceEdit struct {
	Changes           map[protocol.DocumentURI][]protocol.TextEdit `json:"changes,omitempty"`
	DocumentChanges   []annotatedDocumentEdit                      `json:"documentChanges,omitempty"`
	ChangeAnnotations map[string]protocol.ChangeAnnotation         `json:"changeAnnotations,omitempty"`
	// fileOps follow the text edits in documentChanges (MarshalJSON).
	fileOps []renameFileOp
}

type annotatedDocumentEdit struct {
	TextDocument protocol.OptionalVersionedTextDocumentIdentifier `json:"textDocument"`
	Edits        []annotatedTextEdit                              `json:"edits"`
}

type annotatedTextEdit struct {
	protocol.TextEdit
	AnnotationID string `json:"annotationId"`
}

// annotatedEdit turns spans into one edit of the project, annotated with
// label. Spans are sorted by file and position.
func (w *world) annotatedEdit(spans []nameSpan, newText, label string) *renameWorkspaceEdit {
	e := &renameWorkspaceEdit{
		Changes:           map[protocol.DocumentURI][]protocol.TextEdit{},
		ChangeAnnotations: map[string]protocol.ChangeAnnotation{renameAnnotation: {Label: label, NeedsConfirmation: true}},
	}
	for _, s := range sortedSpans(spans) {
		f := w.snap.file(s.rel)
		if f == nil {
			continue
		}
		uri := w.snap.uri(s.rel)
		text := newText
		if s.text != "" {
			text = s.text
		}
		te := protocol.TextEdit{Range: f.Mapper().Range(s.start, s.end), NewText: text}
		e.Changes[uri] = append(e.Changes[uri], te)
		if n := len(e.DocumentChanges); n == 0 || e.DocumentChanges[n-1].TextDocument.URI != uri {
			doc := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}}
			if v := w.snap.version(s.rel); v > 0 {
				vv := int32(v)
				doc.Version = &vv
			}
			e.DocumentChanges = append(e.DocumentChanges, annotatedDocumentEdit{TextDocument: doc})
		}
		last := &e.DocumentChanges[len(e.DocumentChanges)-1]
		last.Edits = append(last.Edits, annotatedTextEdit{TextEdit: te, AnnotationID: renameAnnotation})
	}
	return e
}

// renameColumn is the column rename feature: the column named at d.off
// (in a model's SELECT, its `columns`, or read from a parent) gets a new
// name where its model defines it and wherever it is used downstream —
// models, audits and unit tests — as one edit, or an error that says why
// it cannot be renamed safely.
func renameColumn(d *docPos, newName string) (*renameWorkspaceEdit, error) {
	model, column, ok := renameTarget(d)
	if !ok {
		return nil, fmt.Errorf("only a model name or a column can be renamed here")
	}
	w := d.w
	name, err := columnNameTyped(newName)
	if err != nil {
		return nil, err
	}
	model = w.definingModel(model, column)
	written := sqlIdent(name)
	old := w.spelling(model, column)
	if written == old {
		return &renameWorkspaceEdit{}, nil
	}
	origin, err := w.columnOrigin(model, column, written)
	if err != nil {
		return nil, err
	}
	// Names are compared as the engine compares them, case-insensitively;
	// they are written as typed.
	imp := w.columnImpact(model, column, sqlscan.FoldName(name))
	if len(imp.refusals) > 0 {
		return nil, fmt.Errorf("cannot rename %s.%s: %s", model, old, strings.Join(imp.refusals, "; "))
	}
	if origin != nil {
		imp.spans = append(imp.spans, *origin)
	}
	for i, s := range imp.spans {
		if s.text == "" && s.yaml {
			imp.spans[i].text = yamlKey(w.snap.file(s.rel).src, s.start, name)
		}
	}
	label := fmt.Sprintf("Rename column %s.%s to %s", model, old, written)
	return w.annotatedEdit(imp.spans, written, label), nil
}

// columnNameTyped is the column name a user typed as a rename's new name:
// a "quoted name" (any text, "" for a quote), or letters (of any script
// and case), digits and _, not starting with a digit.
func columnNameTyped(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		inner := s[1 : len(s)-1]
		name := strings.ReplaceAll(inner, `""`, `"`)
		if name == "" || strings.Count(inner, `"`) != 2*strings.Count(name, `"`) || strings.ContainsFunc(name, unicode.IsControl) {
			return "", fmt.Errorf("invalid column name %s: a quoted name is not empty, has no control characters and doubles a \" inside", s)
		}
		return name, nil
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return "", fmt.Errorf("invalid column name %q: use a letter then letters, digits and _, or a \"quoted name\"", s)
		}
	}
	if s == "" {
		return "", fmt.Errorf("invalid column name: empty")
	}
	return s, nil
}

// sqlIdent writes a column name in SQL: bare when it reads back as
// itself unquoted (lower case ASCII letters, digits and _, not a
// keyword), else quoted, so its case and letters are kept.
func sqlIdent(name string) string { return sqlscan.WriteIdent(name) }

// yamlKey writes a column name as a unit-test row key at start: inside
// the quotes the key already has, bare when plain, else double-quoted.
func yamlKey(src []byte, start int, name string) string {
	if start > 0 {
		switch src[start-1] {
		case '\'':
			return strings.ReplaceAll(name, "'", "''")
		case '"':
			q := strconv.Quote(name)
			return q[1 : len(q)-1]
		}
	}
	for i, r := range name {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return strconv.Quote(name)
		}
	}
	return name
}

// spelling is a model's column as its definition writes it (the alias
// or the declared name, quotes and case kept), for messages.
func (w *world) spelling(model, column string) string {
	f := w.fileOf(model)
	if f == nil {
		return column
	}
	if q := f.query(); q != nil {
		if it, star := w.outputItem(q, column, 0); it != nil && star == nil && it.NameEnd > it.NameStart {
			return string(f.src[it.NameStart:it.NameEnd])
		}
	}
	if s, e, ok := declaredColumnName(w, f.rel, column); ok {
		return string(f.src[s:e])
	}
	return column
}

// renameTarget names the column a rename at d.off renames: on a bare
// select item of the model's own SELECT (SELECT a.id), the model's output
// column, which the rename gives an alias; elsewhere the column columnAt
// names.
func renameTarget(d *docPos) (model, column string, ok bool) {
	if q := d.f.query(); q != nil && !inHeader(d.f.model, d.off) {
		if scope, it := itemAt(q, d.off); it != nil && scope == q && bareRef(it) {
			return d.f.model.Name, it.Name, true
		}
	}
	model, column, _, ok = columnAt(d)
	return model, column, ok
}

// definingModel follows a column up the models that pass it on by `*`
// to the model whose SELECT names it: renaming at a use renames the
// column where it is defined.
func (w *world) definingModel(model, column string) string {
	for range maxDepth {
		parent := w.starParent(w.fileOf(model).query(), column, 0)
		if parent == "" || w.model(parent) == nil {
			return model
		}
		model = parent
	}
	return model
}

// starParent is the model q takes its output column col from through
// `*` (also inside its CTEs and subqueries); "" when q names it itself.
func (w *world) starParent(q *sqlread.Query, col string, depth int) string {
	if q == nil || depth > maxDepth {
		return ""
	}
	_, s := w.outputItem(q, col, depth)
	switch {
	case s == nil || len(s.ColAliases) > 0:
		return ""
	case s.Model != "":
		return s.Model
	case s.CTE != nil:
		return w.starParent(s.CTE.Query, col, depth+1)
	case s.Sub != nil:
		return w.starParent(s.Sub, col, depth+1)
	}
	return ""
}

// columnOrigin is the edit of the select item that names a model's
// column: its alias, or an alias added after a bare reference (so the
// model's own parents keep their names). nil when the body does not name
// it (a declared column of a model without a body).
func (w *world) columnOrigin(model, column, newName string) (*nameSpan, error) {
	m := w.model(model)
	if m == nil {
		return nil, fmt.Errorf("unknown model %q", model)
	}
	switch m.Kind.Name {
	case project.KindExternal, project.KindSeed:
		return nil, fmt.Errorf("cannot rename %s.%s: the columns of %s (%s) are the names of its source; rename them there", model, w.spelling(model, column), model, m.Kind.Name)
	}
	q := w.fileOf(model).query()
	if q == nil {
		return nil, nil
	}
	it, starSrc := w.outputItem(q, column, 0)
	switch {
	case starSrc != nil:
		from := starSrc.Alias
		if starSrc.Model != "" {
			from = starSrc.Model
		}
		return nil, fmt.Errorf("cannot rename %s.%s here: it comes through `*` from %s; rename it there", model, w.spelling(model, column), from)
	case it == nil:
		return nil, nil
	case bareRef(it):
		return &nameSpan{rel: m.File, start: it.End, end: it.End, text: " AS " + newName}, nil
	}
	return &nameSpan{rel: m.File, start: it.NameStart, end: it.NameEnd}, nil
}

// columnPrepare answers prepareRename on a column: the span of its name
// under the cursor and the name as written there (quotes and case kept),
// which a rename accepts back.
func columnPrepare(d *docPos) (start, end int, name string, ok bool) {
	_, column, _, found := columnAt(d)
	if !found {
		return 0, 0, "", false
	}
	m := d.f.model
	for _, c := range m.Columns {
		if d.off >= c.Range.Start.Offset && d.off <= c.Range.End.Offset {
			if s, e, ok := declaredColumnName(d.w, d.rel, column); ok {
				return s, e, string(d.f.src[s:e]), true
			}
		}
	}
	q := d.f.query()
	if scope, ref, onQual, ok := refAt(q, d.off); ok && !onQual && scope != nil {
		return ref.Start, ref.End, string(d.f.src[ref.Start:ref.End]), true
	}
	if _, it := itemAt(q, d.off); it != nil && it.NameEnd > it.NameStart {
		return it.NameStart, it.NameEnd, string(d.f.src[it.NameStart:it.NameEnd]), true
	}
	return 0, 0, "", false
}
