package engine

import (
	"sort"
	"strings"
)

// Substitution replaces src[Start:End] with Text when rendering.
type Substitution struct {
	Start, End int
	Text       string
}

// Segment maps rendered[Rendered : Rendered+Len] to source[Source : Source+Len]
// when Copied; a substituted segment maps every rendered offset in it to
// Source (the start of the macro it came from) and spans SourceLen bytes.
type Segment struct {
	Rendered  int
	Len       int
	Source    int
	SourceLen int
	Copied    bool
}

// Rendered is SQL produced from a source text with a map back to it.
type Rendered struct {
	SQL      string
	Segments []Segment
}

// Render copies src[from:to], applying subs (which must lie inside the span
// and not overlap), and records where every rendered byte came from.
// Offsets in subs and in the resulting map are offsets into src.
func Render(src []byte, from, to int, subs []Substitution) Rendered {
	subs = append([]Substitution(nil), subs...)
	sort.Slice(subs, func(i, j int) bool { return subs[i].Start < subs[j].Start })
	// The text is sized once: the span, grown by what replaces its parts.
	size := max(to-from, 0)
	for _, s := range subs {
		size += len(s.Text)
	}
	var out strings.Builder
	out.Grow(size)
	segs := make([]Segment, 0, 2*len(subs)+1)
	pos := from
	copySpan := func(a, b int) {
		if b <= a {
			return
		}
		segs = append(segs, Segment{Rendered: out.Len(), Len: b - a, Source: a, SourceLen: b - a, Copied: true})
		out.Write(src[a:b])
	}
	for _, s := range subs {
		if s.Start < pos || s.End > to {
			continue
		}
		copySpan(pos, s.Start)
		segs = append(segs, Segment{Rendered: out.Len(), Len: len(s.Text), Source: s.Start, SourceLen: s.End - s.Start})
		out.WriteString(s.Text)
		pos = s.End
	}
	copySpan(pos, to)
	return Rendered{SQL: out.String(), Segments: segs}
}

// Prefix returns r with text prepended; the map shifts accordingly and
// offsets inside the prefix map to the start of the first segment.
func (r Rendered) Prefix(text string) Rendered {
	if text == "" {
		return r
	}
	segs := make([]Segment, 0, len(r.Segments)+1)
	src := 0
	if len(r.Segments) > 0 {
		src = r.Segments[0].Source
	}
	segs = append(segs, Segment{Rendered: 0, Len: len(text), Source: src})
	for _, s := range r.Segments {
		s.Rendered += len(text)
		segs = append(segs, s)
	}
	return Rendered{SQL: text + r.SQL, Segments: segs}
}

// Suffix returns r with text appended, mapped to the end of the last segment.
func (r Rendered) Suffix(text string) Rendered {
	if text == "" {
		return r
	}
	end := 0
	if n := len(r.Segments); n > 0 {
		end = r.Segments[n-1].Source + r.Segments[n-1].SourceLen
	}
	segs := append(append([]Segment(nil), r.Segments...), Segment{Rendered: len(r.SQL), Len: len(text), Source: end})
	return Rendered{SQL: r.SQL + text, Segments: segs}
}

// SourceOffset maps a byte offset of the rendered SQL back to the source.
// An offset inside a substitution maps to the start of the macro; an offset
// at or past the end maps to the end of the last segment.
func (r Rendered) SourceOffset(off int) int {
	segs := r.Segments
	i := sort.Search(len(segs), func(i int) bool { return segs[i].Rendered+segs[i].Len > off })
	if i == len(segs) {
		if len(segs) == 0 {
			return 0
		}
		last := segs[len(segs)-1]
		return last.Source + last.SourceLen
	}
	s := segs[i]
	if off < s.Rendered {
		return s.Source
	}
	if s.Copied {
		return s.Source + (off - s.Rendered)
	}
	return s.Source
}

// SourceSpan maps a rendered span to a source span; a span that touches a
// substitution widens to the whole macro.
func (r Rendered) SourceSpan(start, end int) (int, int) {
	s := r.SourceOffset(start)
	e := s
	if end > start {
		e = r.SourceOffset(end-1) + 1
		for _, seg := range r.Segments {
			if !seg.Copied && seg.Rendered <= end-1 && end-1 < seg.Rendered+seg.Len {
				e = seg.Source + seg.SourceLen
			}
		}
	}
	if e < s {
		e = s
	}
	return s, e
}
