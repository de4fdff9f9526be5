package macro

import "sort"

// Segment maps Out[Out : Out+Len] of an expansion to where it came from:
// File[Start:End] (File "" is the expanded file itself), copied verbatim
// when Copied, else generated for the macro written there.
type Segment struct {
	Out, Len   int
	File       string
	Src        []byte // File's text, when File is not the expanded file
	Start, End int
	Copied     bool
	// SiteStart and SiteEnd are the call of the expanded file that made the
	// segment; -1 for text copied outside any call.
	SiteStart, SiteEnd int
}

// Map is an expansion's source map, its segments in output order.
type Map struct {
	Segments []Segment
}

// Identity reports whether the map copies the whole file unchanged.
func (m Map) Identity() bool {
	return len(m.Segments) <= 1 && (len(m.Segments) == 0 || m.Segments[0].Copied && m.Segments[0].File == "" && m.Segments[0].Start == 0)
}

// seg is the segment holding output offset off (the last one past the end).
func (m Map) seg(off int) (Segment, bool) {
	segs := m.Segments
	if len(segs) == 0 {
		return Segment{}, false
	}
	i := sort.Search(len(segs), func(i int) bool { return segs[i].Out+segs[i].Len > off })
	if i == len(segs) {
		i = len(segs) - 1
	}
	return segs[i], true
}

// FileOffset maps an offset of the expanded text to the expanded file: the
// same character when it was copied from there, else the start of the
// macro call that made it.
func (m Map) FileOffset(off int) int {
	s, ok := m.seg(off)
	if !ok {
		return off
	}
	if off >= s.Out+s.Len {
		// Past the end: the end of the last segment's source.
		if s.File == "" {
			if s.Copied {
				return s.End
			}
			return s.Start
		}
		return max(s.SiteEnd, 0)
	}
	if s.File == "" {
		if s.Copied {
			return s.Start + (off - s.Out)
		}
		if s.SiteStart >= 0 {
			return s.SiteStart
		}
		return s.Start
	}
	return max(s.SiteStart, 0)
}

// FileRange maps [start, end) of the expanded text to the expanded file.
// A span that leaves copied text is widened to the calls it touches.
func (m Map) FileRange(start, end int) (int, int) {
	a, aok := m.seg(start)
	fs := m.FileOffset(start)
	fe := fs
	if end > start {
		fe = m.FileOffset(end - 1)
		b, _ := m.seg(end - 1)
		if b.Copied && b.File == "" {
			fe++
		} else if b.SiteEnd >= 0 {
			fe = b.SiteEnd
		} else if b.File == "" {
			fe = b.End
		}
	}
	if aok && !(a.Copied && a.File == "") && fe <= fs {
		if a.SiteEnd > fs {
			fe = a.SiteEnd
		} else if a.File == "" && a.End > fs {
			fe = a.End
		}
	}
	if fe < fs {
		fe = fs
	}
	return fs, fe
}

// Origin is where the expanded text at off came from, when that is a macro
// file: its name, text and span.
func (m Map) Origin(off int) (file string, src []byte, start, end int, ok bool) {
	s, found := m.seg(off)
	if !found || s.File == "" || off >= s.Out+s.Len {
		return "", nil, 0, 0, false
	}
	if s.Copied {
		p := s.Start + (off - s.Out)
		return s.File, s.Src, p, p + 1, true
	}
	return s.File, s.Src, s.Start, s.End, true
}

// OutOffset maps an offset of the expanded file to the expanded text: the
// same character where it was copied, else the start of what the macro
// written there expanded to.
func (m Map) OutOffset(fileOff int) int {
	best := -1
	for _, s := range m.Segments {
		if s.File == "" && s.Copied && fileOff >= s.Start && fileOff < s.End {
			return s.Out + (fileOff - s.Start)
		}
		if best < 0 && s.SiteStart >= 0 && fileOff >= s.SiteStart && fileOff < s.SiteEnd {
			best = s.Out
		}
	}
	if best >= 0 {
		return best
	}
	// Between segments (a macro that expanded to nothing, the end): the
	// first output after it.
	for _, s := range m.Segments {
		if s.File == "" && s.Copied && s.Start >= fileOff {
			return s.Out
		}
	}
	if n := len(m.Segments); n > 0 {
		return m.Segments[n-1].Out + m.Segments[n-1].Len
	}
	return fileOff
}

// outSpan is the span of the expanded text made from the file's
// [start, end): the text copied from it and what calls in it made.
func (m Map) outSpan(start, end int) (int, int) {
	lo, hi := -1, -1
	for _, s := range m.Segments {
		in := s.File == "" && s.Copied && s.Start >= start && s.End <= end ||
			s.SiteStart >= start && s.SiteEnd <= end && s.SiteStart >= 0
		if !in {
			continue
		}
		if lo < 0 {
			lo = s.Out
		}
		hi = s.Out + s.Len
	}
	if lo < 0 {
		o := m.OutOffset(start)
		return o, o
	}
	return lo, hi
}

// Exact maps [start, end) of the expanded text to the expanded file when
// all of it was copied from one run of the file; false otherwise.
func (m Map) Exact(start, end int) (int, int, bool) {
	s, ok := m.seg(start)
	if !ok {
		return start, end, true
	}
	if s.File != "" || !s.Copied || start < s.Out || end > s.Out+s.Len {
		// An empty span right after a copied run is still exact.
		if end == start && start == s.Out+s.Len && s.File == "" && s.Copied {
			return s.End, s.End, true
		}
		return 0, 0, false
	}
	return s.Start + (start - s.Out), s.Start + (end - s.Out), true
}

// OriginRange is Origin for the span [start, end): the whole span in the
// macro file when it was copied from one run of it.
func (m Map) OriginRange(start, end int) (file string, src []byte, s, e int, ok bool) {
	file, src, s, e, ok = m.Origin(start)
	if !ok || end <= start+1 {
		return
	}
	a, _ := m.seg(start)
	b, _ := m.seg(end - 1)
	if a.Out == b.Out && a.Copied {
		e = a.Start + (end - a.Out)
	}
	return
}
