package analysis

import (
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// A ClauseChange is one top-level clause of a model's query whose text
// differs between two versions of the model: what `plan --explain` and
// the editor's breaking-change hint show, so a reader sees the edit as
// SQL rather than as a parse-tree path.
//
// Old and New are the clause as written, comments left out and every run
// of blanks one space; "" where the version has no such clause. A long
// clause (past clauseWidth) keeps only its comma-separated entries that
// changed, the others elided as "…".
type ClauseChange struct {
	// Clause names the clause by its leading keyword(s): SELECT, FROM,
	// WHERE, GROUP BY, …; a repeated one (the branches of a UNION) is
	// numbered: "SELECT #2".
	Clause string `json:"clause"`
	Old    string `json:"old,omitempty"`
	New    string `json:"new,omitempty"`
}

// clauseWidth is the length past which a clause shows only the entries
// that changed.
const clauseWidth = 100

// ClauseDiff compares two query bodies (a stored snapshot's definition and
// the model on disk, macros as written) clause by clause and returns the
// clauses whose text changed, in the order of the new body (clauses only
// the old body has come last). It reads tokens only, never a parse tree:
// it shows what changed; whether the change matters is the planner's
// decision over the engine's outline.
func ClauseDiff(oldBody, newBody string) []ClauseChange {
	oc, nc := splitClauses(oldBody), splitClauses(newBody)
	old := map[string]string{}
	for _, c := range oc {
		old[c.name] = c.text
	}
	seen := map[string]bool{}
	var out []ClauseChange
	for _, c := range nc {
		seen[c.name] = true
		if o := old[c.name]; o != c.text {
			out = append(out, shorten(c.name, o, c.text))
		}
	}
	for _, c := range oc {
		if !seen[c.name] {
			out = append(out, shorten(c.name, c.text, ""))
		}
	}
	return out
}

type clause struct {
	name  string
	text  string   // collapsed, see ClauseChange
	parts []string // the entries between top-level commas, collapsed
}

// splitClauses cuts a body at its top-level clause keywords.
func splitClauses(body string) []clause {
	src := []byte(body)
	toks := sqlscan.Tokens(src, 0)
	var out []clause
	count := map[string]int{}
	depth := 0
	var cur []sqlscan.Token
	var name string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, clause{name: name, text: collapse(src, cur), parts: splitParts(src, cur)})
		}
		cur = nil
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Kind == sqlscan.Punct {
			switch src[t.Start] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			case ';':
				if depth == 0 {
					flush()
					return out
				}
			}
		}
		if depth == 0 && t.Kind == sqlscan.Ident {
			word := strings.ToLower(t.Text(src))
			// A clause keyword (sqlread.IsClauseStart) starts a top-level
			// clause; its second word (BY), when there is one, is part of
			// the clause's name.
			if sqlread.IsClauseStart(word) {
				second := sqlread.ClauseSecondWord(word)
				label := strings.ToUpper(word)
				if second != "" && i+1 < len(toks) && toks[i+1].Is(src, second) {
					label += " " + strings.ToUpper(second)
				}
				flush()
				count[label]++
				name = label
				if count[label] > 1 {
					name = fmt.Sprintf("%s #%d", label, count[label])
				}
			}
		}
		if name == "" {
			name = "query"
		}
		cur = append(cur, t)
	}
	flush()
	return out
}

// collapse is the text of toks: one space where the source has blanks or
// a comment between two tokens, none where they touch.
func collapse(src []byte, toks []sqlscan.Token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 && t.Start > toks[i-1].End {
			b.WriteByte(' ')
		}
		b.Write(src[t.Start:t.End])
	}
	return b.String()
}

// splitParts cuts a clause's tokens at its top-level commas.
func splitParts(src []byte, toks []sqlscan.Token) []string {
	var out []string
	depth, from := 0, 0
	for i, t := range toks {
		if t.Kind != sqlscan.Punct {
			continue
		}
		switch src[t.Start] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, collapse(src, toks[from:i]))
				from = i + 1
			}
		}
	}
	return append(out, collapse(src, toks[from:]))
}

// shorten makes the change of one clause: whole when both versions are
// short, else the entries outside the longest common run of entries.
func shorten(name, old, new string) ClauseChange {
	c := ClauseChange{Clause: name, Old: old, New: new}
	if len(old) <= clauseWidth && len(new) <= clauseWidth || old == "" || new == "" {
		return c
	}
	op, np := splitParts([]byte(old), sqlscan.Tokens([]byte(old), 0)), splitParts([]byte(new), sqlscan.Tokens([]byte(new), 0))
	if len(op) < 2 && len(np) < 2 {
		return c
	}
	keepO, keepN := lcs(op, np)
	c.Old, c.New = elide(op, keepO), elide(np, keepN)
	return c
}

// lcs marks the entries of a and b in a longest common subsequence.
func lcs(a, b []string) (ka, kb []bool) {
	n, m := len(a), len(b)
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	ka, kb = make([]bool, n), make([]bool, m)
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i] == b[j]:
			ka[i], kb[j] = true, true
			i++
			j++
		case l[i+1][j] >= l[i][j+1]:
			i++
		default:
			j++
		}
	}
	return ka, kb
}

// elide joins the entries not kept, a "…" standing for each run of kept
// ones; the first entry (which carries the clause's keyword) is kept as
// its keyword alone when unchanged.
func elide(parts []string, kept []bool) string {
	var out []string
	for i, p := range parts {
		if !kept[i] {
			out = append(out, p)
			continue
		}
		if i == 0 {
			kw := p
			if sp := strings.IndexByte(p, ' '); sp > 0 {
				kw = p[:sp]
				if rest := strings.Fields(p); len(rest) > 1 && (strings.EqualFold(rest[1], "by") || strings.EqualFold(rest[1], "distinct")) {
					kw = rest[0] + " " + rest[1]
				}
			}
			out = append(out, kw+" …")
			continue
		}
		if len(out) == 0 || !strings.HasSuffix(out[len(out)-1], "…") {
			out = append(out, "…")
		}
	}
	return strings.Join(out, ", ")
}
