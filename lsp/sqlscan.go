package lsp

import (
	"github.com/efmesh/efmesh/sqlscan"
)

// The editor reads SQL bodies through sqlscan, the scanner the loader
// finds macros with, so navigation sees the refs rename and the DAG see.
// The engine's parser is the authority on syntax (diagnostics come from
// it); these tokens only find names, aliases and select items for hover,
// navigation and completion.

type tokKind = sqlscan.Kind

const (
	tkIdent  = sqlscan.Ident       // plain identifier or keyword; val is lower case
	tkQuoted = sqlscan.QuotedIdent // "quoted identifier"; val is unquoted, case kept
	tkString = sqlscan.String
	tkNumber = sqlscan.Number
	tkPunct  = sqlscan.Punct // ( ) , ; . [ ] { }
	tkOp     = sqlscan.Op    // operators: + - * / :: -> >= …
	tkMacro  = sqlscan.Macro // @name; for @ref(x) the whole call, val "ref" and arg x
	tkParam  = sqlscan.Param // $name, ?
)

type sqlToken struct {
	kind       tokKind
	start, end int
	val        string
	// for @ref(x): the model name and its span
	arg              string
	argStart, argEnd int
}

func (t sqlToken) isIdent() bool { return t.kind == tkIdent || t.kind == tkQuoted }

// is reports whether t is the unquoted keyword kw (lower case).
func (t sqlToken) is(kw string) bool { return t.kind == tkIdent && t.val == kw }

func (t sqlToken) isPunct(p string) bool { return t.kind == tkPunct && t.val == p }

// scanSQL tokenizes src[from:to], skipping whitespace and comments.
func scanSQL(src []byte, from, to int) []sqlToken {
	src = src[:min(max(to, 0), len(src))]
	var toks []sqlToken
	for _, st := range sqlscan.Tokens(src, from) {
		t := sqlToken{kind: st.Kind, start: st.Start, end: st.End}
		switch st.Kind {
		case sqlscan.Ident:
			t.val = sqlscan.FoldName(st.Text(src))
		case sqlscan.QuotedIdent:
			t.val = st.Value(src)
		case sqlscan.Macro:
			t.val = sqlscan.MacroName(src, st)
			if t.val == "ref" {
				r := sqlscan.ParseRef(src, st.Start)
				t.arg, t.argStart, t.argEnd = r.Name(), r.ArgStart, r.ArgEnd
			}
		default:
			t.val = st.Text(src)
		}
		toks = append(toks, t)
	}
	return toks
}
