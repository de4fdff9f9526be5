package lsp

import (
	"encoding/json"
	"os"
	"path"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
)

// resourceRename reports whether the client applies RenameFile operations
// of a workspace edit (workspace.workspaceEdit.resourceOperations holds
// "rename"). It reads initialize's params on its own, leniently.
func resourceRename(params json.RawMessage) bool {
	var p struct {
		Capabilities struct {
			Workspace struct {
				WorkspaceEdit struct {
					DocumentChanges    bool     `json:"documentChanges"`
					ResourceOperations []string `json:"resourceOperations"`
				} `json:"workspaceEdit"`
			} `json:"workspace"`
		} `json:"capabilities"`
	}
	if len(params) == 0 {
		return false
	}
	lenient(params, &p)
	we := p.Capabilities.Workspace.WorkspaceEdit
	return we.DocumentChanges && slices.Contains(we.ResourceOperations, "rename")
}

// renameFileOp is LSP's RenameFile resource operation.
type renameFileOp struct {
	Kind         string               `json:"kind"`
	OldURI       protocol.DocumentURI `json:"oldUri"`
	NewURI       protocol.DocumentURI `json:"newUri"`
	AnnotationID string               `json:"annotationId,omitempty"`
}

// MarshalJSON writes the file operations after the text edits in
// documentChanges: the edits address the files by their old names.
func (e *renameWorkspaceEdit) MarshalJSON() ([]byte, error) {
	type plain renameWorkspaceEdit
	if len(e.fileOps) == 0 {
		return json.Marshal((*plain)(e))
	}
	changes := make([]any, 0, len(e.DocumentChanges)+len(e.fileOps))
	for _, dc := range e.DocumentChanges {
		changes = append(changes, dc)
	}
	for _, op := range e.fileOps {
		changes = append(changes, op)
	}
	return json.Marshal(struct {
		*plain
		DocumentChanges []any `json:"documentChanges"`
	}{(*plain)(e), changes})
}

// moveModelFile adds to a model rename the move of the model's file when
// its path follows the model's name: models/stg/orders.sql for stg.orders
// becomes models/mart/clients.sql for mart.clients (the directories that
// spell the old name's schema and catalog are renamed as well, when the
// new name has as many parts). A file named otherwise, or a new path that
// is taken, keeps its name.
func moveModelFile(d *docPos, newName string, edit *renameWorkspaceEdit) {
	old, _, _, ok := modelNameAt(d.f.model, d.off)
	target := d.w.model(old)
	if !ok || target == nil || len(edit.DocumentChanges) == 0 {
		return
	}
	newRel, ok := movedPath(target.File, old, strings.ToLower(strings.TrimSpace(newName)))
	if !ok || d.w.snap.file(newRel) != nil {
		return
	}
	if _, err := os.Stat(d.w.snap.abs(newRel)); err == nil {
		return
	}
	edit.fileOps = append(edit.fileOps, renameFileOp{
		Kind:         "rename",
		OldURI:       d.w.snap.uri(target.File),
		NewURI:       uriOf(d.w.snap.abs(newRel)),
		AnnotationID: renameAnnotation,
	})
}

// movedPath is the path of a model file after its model is renamed from
// old to new, and whether the file's name followed the old name.
func movedPath(rel, old, new string) (string, bool) {
	ext := path.Ext(rel)
	dirs := strings.Split(strings.TrimSuffix(rel, ext), "/")
	oldParts, newParts := strings.Split(old, "."), strings.Split(new, ".")
	base := len(dirs) - 1
	if !strings.EqualFold(dirs[base], oldParts[len(oldParts)-1]) {
		return "", false
	}
	dirs[base] = newParts[len(newParts)-1]
	if len(oldParts) == len(newParts) {
		for i := 1; i < len(oldParts) && base-i >= 0; i++ {
			if !strings.EqualFold(dirs[base-i], oldParts[len(oldParts)-1-i]) {
				break
			}
			dirs[base-i] = newParts[len(newParts)-1-i]
		}
	}
	out := strings.Join(dirs, "/") + ext
	if out == rel {
		return "", false
	}
	return out, true
}
