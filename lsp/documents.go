package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/project"
)

// document is an editor buffer. Its text wins over the file on disk for as
// long as it is open.
type document struct {
	uri     protocol.DocumentURI
	path    string
	version int32
	text    []byte
	dirty   bool // changed since opened or saved
}

func (s *Server) didOpen(_ context.Context, params json.RawMessage) error {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	path, err := pathOf(p.TextDocument.URI)
	if err != nil {
		return nil // untitled: and friends belong to no project
	}
	s.mu.Lock()
	s.docs[path] = &document{uri: p.TextDocument.URI, path: path, version: p.TextDocument.Version, text: []byte(p.TextDocument.Text)}
	s.mu.Unlock()
	if v := s.ensureViewContaining(path); v != nil {
		v.fileChanged(path)
	}
	return nil
}

// didChangeParams is DidChangeTextDocumentParams with an optional range:
// protocol's event type cannot tell a full-text change from an edit at 0:0.
type didChangeParams struct {
	TextDocument struct {
		URI     protocol.DocumentURI `json:"uri"`
		Version int32                `json:"version"`
	} `json:"textDocument"`
	ContentChanges []struct {
		Range *protocol.Range `json:"range"`
		Text  string          `json:"text"`
	} `json:"contentChanges"`
}

func (s *Server) didChange(_ context.Context, params json.RawMessage) error {
	var p didChangeParams
	if err := decode(params, &p); err != nil {
		return err
	}
	path, err := pathOf(p.TextDocument.URI)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	d := s.docs[path]
	if d == nil {
		s.mu.Unlock()
		return nil // a change to a document never opened: nothing to apply it to
	}
	text := d.text
	for _, c := range p.ContentChanges {
		if c.Range == nil {
			text = []byte(c.Text)
			continue
		}
		start, end := NewMapper(text).Offsets(*c.Range)
		next := make([]byte, 0, len(text)-(end-start)+len(c.Text))
		next = append(next, text[:start]...)
		next = append(next, c.Text...)
		next = append(next, text[end:]...)
		text = next
	}
	// Replace rather than mutate: snapshots hold the old slice.
	s.docs[path] = &document{uri: d.uri, path: path, version: p.TextDocument.Version, text: text, dirty: true}
	s.mu.Unlock()
	if v := s.viewContaining(path); v != nil {
		v.fileChanged(path)
	}
	return nil
}

func (s *Server) didClose(_ context.Context, params json.RawMessage) error {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	path, err := pathOf(p.TextDocument.URI)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	delete(s.docs, path)
	s.mu.Unlock()
	if v := s.viewContaining(path); v != nil {
		v.fileChanged(path) // the disk's version, if any, takes over
	}
	return nil
}

func (s *Server) didSave(_ context.Context, params json.RawMessage) error {
	var p protocol.DidSaveTextDocumentParams
	if err := decode(params, &p); err != nil {
		return err
	}
	path, err := pathOf(p.TextDocument.URI)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	if d := s.docs[path]; d != nil {
		s.docs[path] = &document{uri: d.uri, path: path, version: d.version, text: d.text}
	}
	s.mu.Unlock()
	// A save is when the editor looks at the warehouse again (a table
	// dropped meanwhile shows in the lenses), never a keystroke.
	s.presence.Invalidate()
	// Seeds and external files are read at check time: saving one changes
	// what a model sees even when no model text changed.
	if v := s.viewContaining(path); v != nil {
		if rel, ok := relPath(v.root, path); ok && v.snapshot().readsData(rel) {
			v.touch()
		}
	}
	return nil
}

func (s *Server) didChangeWatchedFiles(_ context.Context, params json.RawMessage) error {
	var p protocol.DidChangeWatchedFilesParams
	if err := decode(params, &p); err != nil {
		return err
	}
	for _, ev := range p.Changes {
		if ev == nil {
			continue
		}
		path, err := pathOf(ev.URI)
		if err != nil {
			continue
		}
		s.mu.Lock()
		_, open := s.docs[path]
		s.mu.Unlock()
		if open {
			continue // the buffer wins until it is closed
		}
		v := s.viewContaining(path)
		if v == nil {
			if filepath.Base(path) == project.ConfigFile && ev.Type != protocol.FileChangeTypeDeleted {
				s.ensureView(filepath.Dir(path))
			}
			continue
		}
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			v.reload()
			continue
		}
		v.fileChanged(path)
	}
	return nil
}

func (s *Server) didChangeWorkspaceFolders(_ context.Context, params json.RawMessage) error {
	var p protocol.DidChangeWorkspaceFoldersParams
	if err := decode(params, &p); err != nil {
		return err
	}
	for _, f := range p.Event.Added {
		if path, err := pathOf(protocol.DocumentURI(f.URI)); err == nil {
			for _, root := range discoverRoots(path) {
				s.ensureView(root)
			}
		}
	}
	for _, f := range p.Event.Removed {
		path, err := pathOf(protocol.DocumentURI(f.URI))
		if err != nil {
			continue
		}
		s.mu.Lock()
		var gone []*view
		for root, v := range s.views {
			if _, inside := relPath(path, root); inside || root == path {
				gone = append(gone, v)
				delete(s.views, root)
			}
		}
		s.mu.Unlock()
		for _, v := range gone {
			v.stop()
		}
	}
	return nil
}

// read returns a file's contents: the open buffer's, else the disk's.
func (s *Server) read(abs string) ([]byte, error) {
	s.mu.Lock()
	d := s.docs[abs]
	s.mu.Unlock()
	if d != nil {
		return d.text, nil
	}
	return project.ReadFile(abs)
}

// openUnder returns the open documents inside root, by relative path.
func (s *Server) openUnder(root string) map[string]openDoc {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]openDoc{}
	for path, d := range s.docs {
		if rel, ok := relPath(root, path); ok {
			out[rel] = openDoc{uri: d.uri, version: d.version}
		}
	}
	return out
}

// dirtyUnder lists open documents inside root with unsaved changes: a
// buffer changed since it was opened or saved whose text is not the
// disk's (an edit undone in the editor leaves the file as saved, and the
// client sends no didSave for it).
func (s *Server) dirtyUnder(root string) []string {
	type changed struct {
		rel, path string
		text      []byte
	}
	var maybe []changed
	s.mu.Lock()
	for path, d := range s.docs {
		if rel, ok := relPath(root, path); ok && d.dirty {
			maybe = append(maybe, changed{rel, path, d.text})
		}
	}
	s.mu.Unlock()
	var out []string
	for _, c := range maybe {
		if disk, err := project.ReadFile(c.path); err != nil || !bytes.Equal(disk, c.text) {
			out = append(out, c.rel)
		}
	}
	return out
}
