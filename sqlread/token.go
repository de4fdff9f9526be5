package sqlread

import (
	"github.com/efmesh/efmesh/sqlscan"
)

// A Token is one of sqlscan's tokens with the text the reader compares:
// Val is a bare word folded to lower case (sqlscan.FoldName), a quoted
// identifier unquoted with its case kept, a macro's name (@ref(x) is one
// token, Val "ref"), and any other token as written.
type Token struct {
	Kind       sqlscan.Kind
	Start, End int // byte offsets in the source
	Val        string
	// For @ref(x): the model name and where it is written; "" while the
	// call is being typed (@ref( with no name yet).
	Arg              string
	ArgStart, ArgEnd int
}

// IsIdent reports whether t is a bare word or a quoted identifier.
func (t Token) IsIdent() bool { return t.Kind == sqlscan.Ident || t.Kind == sqlscan.QuotedIdent }

// Is reports whether t is the unquoted keyword kw (lower case).
func (t Token) Is(kw string) bool { return t.Kind == sqlscan.Ident && t.Val == kw }

// IsPunct reports whether t is the punctuation p: ( ) , ; . [ ] { }.
func (t Token) IsPunct(p string) bool { return t.Kind == sqlscan.Punct && t.Val == p }

// Scan tokenizes src[from:to], skipping whitespace and comments.
func Scan(src []byte, from, to int) []Token {
	src = src[:min(max(to, 0), len(src))]
	var toks []Token
	for _, st := range sqlscan.Tokens(src, from) {
		t := Token{Kind: st.Kind, Start: st.Start, End: st.End}
		switch st.Kind {
		case sqlscan.Ident:
			t.Val = sqlscan.FoldName(st.Text(src))
		case sqlscan.QuotedIdent:
			t.Val = st.Value(src)
		case sqlscan.Macro:
			t.Val = sqlscan.MacroName(src, st)
			if t.Val == "ref" {
				r := sqlscan.ParseRef(src, st.Start)
				t.Arg, t.ArgStart, t.ArgEnd = r.Name(), r.ArgStart, r.ArgEnd
			}
		default:
			t.Val = st.Text(src)
		}
		toks = append(toks, t)
	}
	return toks
}
