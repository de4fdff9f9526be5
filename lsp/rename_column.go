package lsp

import (
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/project"
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
	newName = strings.TrimSpace(newName)
	if !project.ValidNamePart(strings.ToLower(newName)) {
		return nil, fmt.Errorf("invalid column name %q: use a letter then letters, digits and _", newName)
	}
	newName = strings.ToLower(newName)
	if newName == column {
		return &renameWorkspaceEdit{}, nil
	}
	model = w.definingModel(model, column)
	origin, err := w.columnOrigin(model, column, newName)
	if err != nil {
		return nil, err
	}
	imp := w.columnImpact(model, column, newName)
	if len(imp.refusals) > 0 {
		return nil, fmt.Errorf("cannot rename %s.%s: %s", model, column, strings.Join(imp.refusals, "; "))
	}
	if origin != nil {
		imp.spans = append(imp.spans, *origin)
	}
	label := fmt.Sprintf("Rename column %s.%s to %s", model, column, newName)
	return w.annotatedEdit(imp.spans, newName, label), nil
}

// renameTarget names the column a rename at d.off renames: on a bare
// select item of the model's own SELECT (SELECT a.id), the model's output
// column, which the rename gives an alias; elsewhere the column columnAt
// names.
func renameTarget(d *docPos) (model, column string, ok bool) {
	if q := d.f.query(); q != nil && !inHeader(d.f.model, d.off) {
		if scope, it := itemAt(q, d.off); it != nil && scope == q && bareRef(it) {
			return d.f.model.Name, it.name, true
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
func (w *world) starParent(q *query, col string, depth int) string {
	if q == nil || depth > maxDepth {
		return ""
	}
	_, s := w.outputItem(q, col, depth)
	switch {
	case s == nil || len(s.colAliases) > 0:
		return ""
	case s.model != "":
		return s.model
	case s.cte != nil:
		return w.starParent(s.cte.q, col, depth+1)
	case s.sub != nil:
		return w.starParent(s.sub, col, depth+1)
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
		return nil, fmt.Errorf("cannot rename %s.%s: the columns of %s (%s) are the names of its source; rename them there", model, column, model, m.Kind.Name)
	}
	q := w.fileOf(model).query()
	if q == nil {
		return nil, nil
	}
	it, starSrc := w.outputItem(q, column, 0)
	switch {
	case starSrc != nil:
		from := starSrc.alias
		if starSrc.model != "" {
			from = starSrc.model
		}
		return nil, fmt.Errorf("cannot rename %s.%s here: it comes through `*` from %s; rename it there", model, column, from)
	case it == nil:
		return nil, nil
	case bareRef(it):
		return &nameSpan{rel: m.File, start: it.end, end: it.end, text: " AS " + newName}, nil
	}
	return &nameSpan{rel: m.File, start: it.nameStart, end: it.nameEnd}, nil
}

// columnPrepare answers prepareRename on a column: the span of its name
// under the cursor and the column's name.
func columnPrepare(d *docPos) (start, end int, name string, ok bool) {
	_, column, _, found := columnAt(d)
	if !found {
		return 0, 0, "", false
	}
	m := d.f.model
	for _, c := range m.Columns {
		if d.off >= c.Range.Start.Offset && d.off <= c.Range.End.Offset {
			if s, e, ok := declaredColumnName(d.w, d.rel, column); ok {
				return s, e, column, true
			}
		}
	}
	q := d.f.query()
	if scope, ref, onQual, ok := refAt(q, d.off); ok && !onQual && scope != nil {
		return ref.start, ref.end, column, true
	}
	if _, it := itemAt(q, d.off); it != nil {
		return it.nameStart, it.nameEnd, column, true
	}
	return 0, 0, "", false
}
