package lsp

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/project"
)

// published is what the checker last sent for one file.
type published struct {
	uri protocol.DocumentURI
	key string // the encoded diagnostics
	// version is the buffer version they were sent with: the same
	// diagnostics for a newer buffer (a file opened while the project
	// loaded) are sent again, so the client knows they are current.
	version uint32
	// What they were made of: the same file of a snapshot with equal
	// diagnostics encodes to the same key, so it is not encoded again.
	f  *file
	ds []project.Diagnostic
	// open: the file was open, so uri is the client's spelling; a file
	// neither open then nor now keeps its URI.
	open bool
}

// publish sends the diagnostics of a check, file by file, skipping files
// whose diagnostics did not change and clearing files that have none any
// more. It runs on the checker goroutine only, in snapshot order, so an
// older result never overwrites a newer one. Each publication carries the
// version of the buffer that was checked.
func (c *checker) publish(res *checkResult) {
	snap := res.snap
	last, lastDiags := c.lastSnap, c.lastDiags
	c.lastSnap, c.lastDiags = nil, nil
	sorted := slices.IsSortedFunc(res.diags, func(a, b project.Diagnostic) int { return strings.Compare(a.File, b.File) })
	if sorted && last != nil && c.publishChanged(last, lastDiags, snap, res.diags) {
		c.lastSnap, c.lastDiags = snap, res.diags
		return
	}
	if sorted {
		c.lastSnap, c.lastDiags = snap, res.diags
	}
	byFile := map[string][]project.Diagnostic{}
	for _, d := range res.diags {
		if d.File != "" {
			byFile[d.File] = append(byFile[d.File], d)
		}
	}
	rels := slices.Sorted(maps.Keys(byFile))
	for rel := range c.published {
		if _, ok := byFile[rel]; !ok {
			rels = append(rels, rel)
		}
	}
	c.publishedFiles = len(rels)
	for _, rel := range rels {
		c.publishFile(snap, rel, byFile[rel])
	}
}

// publishChanged is publish after a publication of last's diagnostics
// was (both sorted by file), when snap is of last's lineage: it walks the
// two lists side by side and publishes only the files whose diagnostics
// differ, or whose text or buffer changed, so an edit costs the files it
// moved, not every file with a diagnostic. It reports false, publishing
// nothing, when it does not apply.
func (c *checker) publishChanged(last *snapshot, was []project.Diagnostic, snap *snapshot, ds []project.Diagnostic) bool {
	if snap.lineage == 0 || last.lineage != snap.lineage || snap.full {
		return false
	}
	dirty := map[string]bool{}
	for rel := range snap.edited {
		dirty[rel] = true
	}
	for rel := range last.edited {
		dirty[rel] = true
	}
	for rel, d := range snap.open {
		if last.open[rel] != d {
			dirty[rel] = true
		}
	}
	for rel, d := range last.open {
		if snap.open[rel] != d {
			dirty[rel] = true
		}
	}
	// end returns the end of the group of ds at i, all on one file.
	end := func(ds []project.Diagnostic, i int) int {
		j := i + 1
		for j < len(ds) && ds[j].File == ds[i].File {
			j++
		}
		return j
	}
	n := 0
	i, j := 0, 0
	for i < len(was) || j < len(ds) {
		var rel string
		switch {
		case i == len(was):
			rel = ds[j].File
		case j == len(ds):
			rel = was[i].File
		default:
			rel = min(was[i].File, ds[j].File)
		}
		var old, cur []project.Diagnostic
		if i < len(was) && was[i].File == rel {
			e := end(was, i)
			old, i = was[i:e], e
		}
		if j < len(ds) && ds[j].File == rel {
			e := end(ds, j)
			cur, j = ds[j:e], e
		}
		if rel != "" && (dirty[rel] || !sameDiagnostics(old, cur)) {
			n++
			c.publishFile(snap, rel, cur)
		}
	}
	c.publishedFiles = n
	return true
}

// publishFirst publishes the diagnostics ds of a check ahead of its full
// result (the linter's findings and the plan hints come later), on the
// files that have nothing published: a file whose diagnostics are out
// keeps them until the full result replaces them, so nothing flickers.
func (c *checker) publishFirst(snap *snapshot, ds []project.Diagnostic) {
	c.lastSnap, c.lastDiags = nil, nil
	byFile := map[string][]project.Diagnostic{}
	for _, d := range ds {
		if _, had := c.published[d.File]; d.File != "" && !had {
			byFile[d.File] = append(byFile[d.File], d)
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(byFile)) {
		c.publishFile(snap, rel, byFile[rel])
	}
}

// publishFile publishes the diagnostics ds of one file unless they are
// what was published last; none clears what was.
func (c *checker) publishFile(snap *snapshot, rel string, ds []project.Diagnostic) {
	old, had := c.published[rel]
	_, open := snap.open[rel]
	var uri protocol.DocumentURI
	if had && !open && !old.open {
		uri = old.uri
	} else {
		uri = snap.uri(rel)
	}
	f := snap.file(rel)
	version := snap.version(rel)
	if had && len(ds) > 0 && old.uri == uri && old.version == version && f != nil && old.f == f && sameDiagnostics(old.ds, ds) {
		return
	}
	pds := protocolDiagnostics(snap, rel, ds)
	if !c.v.s.clientRelated() {
		for i := range pds {
			for _, r := range pds[i].RelatedInformation {
				p := r.Location.Range.Start
				pds[i].Message += fmt.Sprintf("\n%s:%d:%d: %s", relOf(snap, r.Location.URI), p.Line+1, p.Character+1, r.Message)
			}
			pds[i].RelatedInformation = nil
		}
	}
	if had && old.uri != uri {
		c.send(old.uri, 0, []protocol.Diagnostic{})
		had = false
		delete(c.published, rel)
	}
	if len(pds) == 0 {
		if had {
			c.send(uri, version, []protocol.Diagnostic{})
			delete(c.published, rel)
		}
		return
	}
	b, _ := json.Marshal(pds)
	key := string(b)
	c.published[rel] = published{uri: uri, key: key, version: version, f: f, ds: ds, open: open}
	if had && old.key == key && old.version == version {
		return
	}
	c.send(uri, version, pds)
}

// sameDiagnostics reports whether a and b are equal; the fixes of a
// model's diagnostics a check did not redo are the same slices, so
// comparing the diagnostics of an unchanged file reflects on nothing.
func sameDiagnostics(a, b []project.Diagnostic) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.File != y.File || x.Range != y.Range || x.Severity != y.Severity || x.Code != y.Code || x.Message != y.Message ||
			len(x.Fixes) != len(y.Fixes) {
			return false
		}
		if len(x.Fixes) > 0 && &x.Fixes[0] != &y.Fixes[0] && !reflect.DeepEqual(x.Fixes, y.Fixes) {
			return false
		}
	}
	return true
}

// send publishes the diagnostics of one document; version 0 (a file that
// is not open) is left out of the message.
func (c *checker) send(uri protocol.DocumentURI, version uint32, ds []protocol.Diagnostic) {
	c.v.s.notify(protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: uri, Version: version, Diagnostics: ds})
}

// protocolDiagnostics converts the diagnostics of one file.
func protocolDiagnostics(snap *snapshot, rel string, ds []project.Diagnostic) []protocol.Diagnostic {
	if len(ds) == 0 {
		return nil
	}
	m := mapperFor(snap, rel)
	out := make([]protocol.Diagnostic, 0, len(ds))
	for _, d := range ds {
		pd := protocolDiagnostic(m, d)
		for _, r := range d.Related {
			pd.RelatedInformation = append(pd.RelatedInformation, protocol.DiagnosticRelatedInformation{
				Location: protocol.Location{URI: snap.uri(r.File), Range: mapperFor(snap, r.File).Range(r.Range.Start.Offset, r.Range.End.Offset)},
				Message:  r.Message,
			})
		}
		out = append(out, pd)
	}
	return out
}

func protocolDiagnostic(m *Mapper, d project.Diagnostic) protocol.Diagnostic {
	return protocol.Diagnostic{
		Range:    m.Range(d.Range.Start.Offset, d.Range.End.Offset),
		Severity: protocol.DiagnosticSeverity(d.Severity),
		Code:     d.Code,
		Source:   diagnosticSource(d),
		Message:  d.Message,
	}
}

// mapperFor returns the mapper of a file of the snapshot, reading the disk
// for a file the snapshot does not hold (then positions are as good as
// the disk is current).
func mapperFor(snap *snapshot, rel string) *Mapper {
	if f := snap.file(rel); f != nil {
		return f.Mapper()
	}
	src, _ := os.ReadFile(snap.abs(rel))
	return NewMapper(src)
}

// clientRelated reports whether the client shows relatedInformation.
func (s *Server) clientRelated() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client.related
}

// relOf is a snapshot file's URI as the project names it.
func relOf(snap *snapshot, uri protocol.DocumentURI) string {
	if path, err := pathOf(uri); err == nil {
		if rel, ok := snap.rel(path); ok {
			return rel
		}
	}
	return string(uri)
}
