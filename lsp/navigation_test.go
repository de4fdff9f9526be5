package lsp

import (
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
)

// navigation runs the scenario commands calls, highlight and folds.
func (r *scenario) navigation(args []string) error {
	c := r.c
	switch args[0] {
	case "calls":
		if len(args) != 3 {
			return fmt.Errorf("calls takes 2 arguments")
		}
		var items []protocol.CallHierarchyItem
		c.mustCall("textDocument/prepareCallHierarchy", c.docPos(args[1], args[2]), &items)
		if len(items) == 0 {
			r.printf("none\n")
			return nil
		}
		for _, it := range items {
			r.printf("item %s\n", r.callItem(it))
			var in []protocol.CallHierarchyIncomingCall
			c.mustCall("callHierarchy/incomingCalls", map[string]any{"item": it}, &in)
			for _, call := range in {
				r.printf("  incoming %s from %s\n", r.callItem(call.From), r.ranges(call.From.URI, call.FromRanges))
			}
			var out []protocol.CallHierarchyOutgoingCall
			c.mustCall("callHierarchy/outgoingCalls", map[string]any{"item": it}, &out)
			for _, call := range out {
				r.printf("  outgoing %s from %s\n", r.callItem(call.To), r.ranges(it.URI, call.FromRanges))
			}
		}
	case "highlight":
		if len(args) != 3 {
			return fmt.Errorf("highlight takes 2 arguments")
		}
		var hs []protocol.DocumentHighlight
		c.mustCall("textDocument/documentHighlight", c.docPos(args[1], args[2]), &hs)
		if len(hs) == 0 {
			r.printf("none\n")
		}
		for _, h := range hs {
			r.printf("%s %s\n", r.ranges(c.uri(args[1]), []protocol.Range{h.Range}), highlightKind(h.Kind))
		}
	case "folds":
		if len(args) != 2 {
			return fmt.Errorf("folds takes 1 argument")
		}
		var fs []protocol.FoldingRange
		c.mustCall("textDocument/foldingRange", map[string]any{"textDocument": map[string]any{"uri": c.uri(args[1])}}, &fs)
		if len(fs) == 0 {
			r.printf("none\n")
		}
		lines := strings.Split(string(c.text(args[1])), "\n")
		for _, f := range fs {
			first := ""
			if int(f.StartLine) < len(lines) {
				first = strings.TrimSpace(lines[f.StartLine])
			}
			r.printf("%d-%d %s %q\n", f.StartLine+1, f.EndLine+1, f.Kind, first)
		}
	}
	return nil
}

// callItem prints an item: name [kind detail] file:range "text there".
func (r *scenario) callItem(it protocol.CallHierarchyItem) string {
	loc := protocol.Location{URI: it.URI, Range: it.SelectionRange}
	return fmt.Sprintf("%s [%s %s] %s:%s %q", it.Name, it.Kind, it.Detail, r.rel(it.URI), rangeText(it.SelectionRange), r.textAt(loc))
}

// ranges prints ranges of one file with the text of each.
func (r *scenario) ranges(uri protocol.DocumentURI, rs []protocol.Range) string {
	var parts []string
	for _, rg := range rs {
		parts = append(parts, fmt.Sprintf("%s:%s %q", r.rel(uri), rangeText(rg), r.textAt(protocol.Location{URI: uri, Range: rg})))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

func highlightKind(k protocol.DocumentHighlightKind) string {
	switch k {
	case protocol.DocumentHighlightKindRead:
		return "read"
	case protocol.DocumentHighlightKindWrite:
		return "write"
	}
	return "text"
}
