package lsp

import (
	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/project"
)

// docPos is a request's view of one document: its project, the snapshot
// and check result it is answered from, the file, and the byte offset of
// the position asked about.
type docPos struct {
	v   *view
	w   *world
	f   *file
	rel string
	off int
}

// document finds the snapshot file of uri. ok is false for a document
// outside every project; requests then answer null.
func (s *Server) document(uri protocol.DocumentURI) (*docPos, bool) {
	path, err := pathOf(uri)
	if err != nil {
		return nil, false
	}
	v := s.viewContaining(path)
	if v == nil {
		return nil, false
	}
	snap, res := v.current()
	rel, ok := snap.rel(path)
	if !ok {
		return nil, false
	}
	f := snap.file(rel)
	if f == nil && snap.partial && rel != project.ConfigFile && snap.isProjectFile(rel) {
		// The project is loading and holds the open files only: a request
		// on another file waits for the load.
		v.awaitLoad(s.ctx)
		snap, res = v.current()
		f = snap.file(rel)
	}
	if f == nil {
		return nil, false
	}
	return &docPos{v: v, w: &world{snap: snap, res: res}, f: f, rel: rel}, true
}

// position is document plus the offset of pos.
func (s *Server) position(uri protocol.DocumentURI, pos protocol.Position) (*docPos, bool) {
	d, ok := s.document(uri)
	if !ok {
		return nil, false
	}
	d.off = d.f.Mapper().Offset(pos)
	return d, true
}

// location converts a byte span of a snapshot file into an LSP location.
func (w *world) location(rel string, start, end int) protocol.Location {
	f := w.snap.file(rel)
	var r protocol.Range
	if f != nil {
		r = f.Mapper().Range(start, end)
	}
	return protocol.Location{URI: w.snap.uri(rel), Range: r}
}
