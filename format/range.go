package format

import (
	"bytes"
	"strings"

	"github.com/efmesh/efmesh/sqlscan"
)

// An Edit replaces the bytes [Start, End) of a file's text with Text.
type Edit struct {
	Start, End int
	Text       string
}

// maxDiffCells bounds the work of the token diff (old tokens × new tokens
// between the common prefix and suffix); past it Hunks gives one edit for
// the whole differing span.
const maxDiffCells = 8 << 20

// Hunks returns the edits that turn src into its layout out (what Source
// returned for it), as small as the tokens allow: the two texts hold the
// same tokens (keywords may differ in case), so each edit is the blanks
// between two tokens, or one keyword's case. The edits are in order and do
// neither overlap nor touch; applied together they give out.
func Hunks(src, out []byte) []Edit {
	a, b := diffTokens(src), diffTokens(out)
	// Common prefix and suffix of equal tokens (up to case).
	p := 0
	for p < len(a) && p < len(b) && sameToken(src, out, a[p], b[p]) {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && sameToken(src, out, a[len(a)-1-s], b[len(b)-1-s]) {
		s++
	}
	pairs := make([][2]int, 0, p+s)
	for i := 0; i < p; i++ {
		pairs = append(pairs, [2]int{i, i})
	}
	mid := lcs(src, out, a[p:len(a)-s], b[p:len(b)-s])
	if mid == nil && len(a)-s > p && len(b)-s > p {
		// Too large to diff token by token: the differing middle is one
		// edit, bounded by the common prefix and suffix.
		mid = [][2]int{}
	}
	for _, m := range mid {
		pairs = append(pairs, [2]int{p + m[0], p + m[1]})
	}
	for k := s; k > 0; k-- {
		pairs = append(pairs, [2]int{len(a) - k, len(b) - k})
	}
	var edits []Edit
	add := func(os, oe, ns, ne int) {
		if bytes.Equal(src[os:oe], out[ns:ne]) {
			return
		}
		if n := len(edits); n > 0 && edits[n-1].End == os {
			// Touching edits are one: an insertion and a replacement at
			// one offset would be ambiguous to a client.
			edits[n-1].End = oe
			edits[n-1].Text += string(out[ns:ne])
			return
		}
		edits = append(edits, Edit{Start: os, End: oe, Text: string(out[ns:ne])})
	}
	oPrev, nPrev := 0, 0
	for _, m := range pairs {
		ta, tb := a[m[0]], b[m[1]]
		add(oPrev, ta.Start, nPrev, tb.Start) // the blanks (and unmatched tokens) before
		add(ta.Start, ta.End, tb.Start, tb.End)
		oPrev, nPrev = ta.End, tb.End
	}
	add(oPrev, len(src), nPrev, len(out))
	return edits
}

// InRange keeps the edits that lie inside [start, end] of the text; an
// edit crossing either edge is dropped.
func InRange(edits []Edit, start, end int) []Edit {
	var kept []Edit
	for _, e := range edits {
		if e.Start >= start && e.End <= end {
			kept = append(kept, e)
		}
	}
	return kept
}

// Apply returns src with edits (in order, not overlapping) applied.
func Apply(src []byte, edits []Edit) []byte {
	var b bytes.Buffer
	prev := 0
	for _, e := range edits {
		b.Write(src[prev:e.Start])
		b.WriteString(e.Text)
		prev = e.End
	}
	b.Write(src[prev:])
	return b.Bytes()
}

// Range lays out only the part [start, end] of a file: the edits of its
// whole layout that fall inside the range, kept only where formatting the
// result as a whole still gives the whole file's layout (so the rest can
// be formatted later to the same text). It returns the whole layout too.
func Range(src []byte, start, end int) (edits []Edit, whole []byte, err error) {
	whole, err = Source(src)
	if err != nil {
		return nil, nil, err
	}
	if bytes.Equal(whole, src) {
		return nil, whole, nil
	}
	edits = InRange(Hunks(src, whole), start, end)
	if len(edits) == 0 {
		return nil, whole, nil
	}
	if again, err := Source(Apply(src, edits)); err != nil || !bytes.Equal(again, whole) {
		// The partial layout would not converge: leave the range alone
		// rather than write text a whole format would not give.
		return nil, whole, nil
	}
	return edits, whole, nil
}

// diffTokens are the tokens of text, comments included.
func diffTokens(src []byte) []sqlscan.Token {
	var out []sqlscan.Token
	s := sqlscan.NewScanner(src, 0)
	for {
		t := s.Next()
		if t.Kind == sqlscan.EOF {
			return out
		}
		out = append(out, t)
	}
}

// sameToken: the same token in both texts, a keyword or name up to case.
func sameToken(src, out []byte, a, b sqlscan.Token) bool {
	if a.Kind != b.Kind {
		return false
	}
	x, y := a.Text(src), b.Text(out)
	if a.Kind == sqlscan.Ident {
		return strings.EqualFold(x, y)
	}
	return x == y
}

// lcs matches a and b (their longest common subsequence of same tokens),
// as index pairs in order; nil when the table would be too large.
func lcs(src, out []byte, a, b []sqlscan.Token) [][2]int {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return [][2]int{}
	}
	if n*m > maxDiffCells {
		return nil
	}
	// t[i][j] is the length of the LCS of a[i:] and b[j:].
	w := m + 1
	t := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case sameToken(src, out, a[i], b[j]):
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			case t[(i+1)*w+j] >= t[i*w+j+1]:
				t[i*w+j] = t[(i+1)*w+j]
			default:
				t[i*w+j] = t[i*w+j+1]
			}
		}
	}
	pairs := [][2]int{}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case sameToken(src, out, a[i], b[j]):
			pairs = append(pairs, [2]int{i, j})
			i++
			j++
		case t[(i+1)*w+j] >= t[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return pairs
}
