package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// fileRename is a RenameFile operation of a workspace edit.
type fileRename struct {
	Kind   string               `json:"kind"`
	OldURI protocol.DocumentURI `json:"oldUri"`
	NewURI protocol.DocumentURI `json:"newUri"`
}

// fileRenames prints and returns the RenameFile operations among a
// workspace edit's documentChanges.
func (r *scenario) fileRenames(raw json.RawMessage) []fileRename {
	var e struct {
		DocumentChanges []fileRename `json:"documentChanges"`
	}
	_ = json.Unmarshal(raw, &e)
	var out []fileRename
	for _, op := range e.DocumentChanges {
		if op.Kind == "rename" {
			r.printf("  rename file %s -> %s\n", r.rel(op.OldURI), r.rel(op.NewURI))
			out = append(out, op)
		}
	}
	return out
}

// renameFiles carries out RenameFile operations as an editor does: the
// file moves on disk, its buffer (with the edits just applied) moves with
// it, and the watchers report the move.
func (r *scenario) renameFiles(ops []fileRename) error {
	c := r.c
	for _, op := range ops {
		oldRel, newRel := r.rel(op.OldURI), r.rel(op.NewURI)
		text := c.text(oldRel)
		c.close(oldRel)
		newPath := filepath.Join(c.root, filepath.FromSlash(newRel))
		if err := os.MkdirAll(filepath.Dir(newPath), 0o755); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(c.root, filepath.FromSlash(oldRel)), newPath); err != nil {
			return err
		}
		c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
			map[string]any{"uri": c.uri(oldRel), "type": protocol.FileChangeTypeDeleted},
			map[string]any{"uri": c.uri(newRel), "type": protocol.FileChangeTypeCreated},
		}})
		c.mu.Lock()
		c.texts[newRel] = text
		c.versions[newRel] = 1
		c.mu.Unlock()
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": c.uri(newRel), "languageId": "sql", "version": 1, "text": string(text)}})
	}
	return nil
}
