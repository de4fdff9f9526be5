package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/format"
	"github.com/efmesh/efmesh/workspace"
)

// codeRequestFailed is LSP's RequestFailed: the request was valid but
// could not be done (the layout would change the model's fingerprint).
const codeRequestFailed jsonrpc2.Code = -32803

func (s *Server) formatting(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.DocumentFormattingParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.document(p.TextDocument.URI)
	if !ok || d.f.model == nil && d.f.audit == nil {
		return nil, nil
	}
	if tooBig(d.f) {
		s.showMessage(protocol.MessageTypeInfo, "efmesh: %s is over the %d MB the editor formats; run `efmesh format` on it", d.f.rel, maxCheckedModel>>20)
		return []protocol.TextEdit{}, nil
	}
	return formatEdits(ctx, d)
}

// rangeFormatting lays out only the selected part of the file: the edits
// of the whole file's layout that fall inside the range (one crossing its
// edge is left out), kept only where formatting the file as a whole later
// gives the same text as formatting it at once, and refused, as a whole
// format is, when the result would change the model's fingerprint.
func (s *Server) rangeFormatting(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.DocumentRangeFormattingParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.document(p.TextDocument.URI)
	if !ok || d.f.model == nil && d.f.audit == nil {
		return nil, nil
	}
	if tooBig(d.f) {
		return []protocol.TextEdit{}, nil
	}
	mp := d.f.Mapper()
	start, end := mp.Offsets(p.Range)
	edits, _, err := format.Range(d.f.src, start, end)
	if err != nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, err.Error())
	}
	if len(edits) == 0 {
		return []protocol.TextEdit{}, nil
	}
	if d.w.snap.proj == nil {
		return nil, nil
	}
	if err := checkLayout(ctx, d, format.Apply(d.f.src, edits)); err != nil {
		return nil, err
	}
	out := make([]protocol.TextEdit, len(edits))
	for i, e := range edits {
		out[i] = protocol.TextEdit{Range: mp.Range(e.Start, e.End), NewText: e.Text}
	}
	return out, nil
}

// formatEdits is the formatting feature: the model or audit file of d laid
// out by format, as one edit spanning what changed, refused when the
// model's fingerprint (the audit's query) would change. The check is
// efmesh format's (workspace.LayoutProblems): the file's own text parsed
// before and after on the view's workbench, between checks, so it costs
// the file, not the project.
func formatEdits(ctx context.Context, d *docPos) ([]protocol.TextEdit, error) {
	src := d.f.src
	got, err := format.Source(src)
	if err != nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, err.Error())
	}
	if bytes.Equal(got, src) {
		return []protocol.TextEdit{}, nil
	}
	if d.w.snap.proj == nil {
		return nil, nil
	}
	if err := checkLayout(ctx, d, got); err != nil {
		return nil, err
	}
	start, end, text := changed(src, got)
	return []protocol.TextEdit{{Range: d.f.Mapper().Range(start, end), NewText: text}}, nil
}

// checkLayout refuses a new text of d's file that would change the
// model's fingerprint (the audit's query).
func checkLayout(ctx context.Context, d *docPos, got []byte) error {
	snap := d.w.snap
	var problems map[string]string
	err := d.v.ck.do(ctx, func(wb analysis.Workbench) error {
		problems = workspace.LayoutProblems(snap.proj, wb, map[string][]byte{d.rel: got})
		return nil
	})
	if err != nil {
		return jsonrpc2.NewError(codeRequestFailed, d.rel+": the layout cannot be checked: "+err.Error())
	}
	if pr := problems[d.rel]; pr != "" {
		return jsonrpc2.NewError(codeRequestFailed, d.rel+": "+pr)
	}
	return nil
}

// changed returns the span of old that differs from new (after their
// common prefix and suffix, on character boundaries) and its replacement.
func changed(old, new []byte) (start, end int, text string) {
	for start < len(old) && start < len(new) && old[start] == new[start] {
		start++
	}
	for start > 0 && start < len(old) && !utf8.RuneStart(old[start]) {
		start--
	}
	n := 0
	for n < len(old)-start && n < len(new)-start && old[len(old)-1-n] == new[len(new)-1-n] {
		n++
	}
	for n > 0 && !utf8.RuneStart(old[len(old)-n]) {
		n--
	}
	return start, len(old) - n, string(new[start : len(new)-n])
}
