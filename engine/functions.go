package engine

import (
	"context"
	"strings"
)

// Function is one overload of a function the engine knows, as its own
// catalog describes it (never a hand-written list).
type Function struct {
	Name        string   `json:"name"`        // lower case
	Kind        string   `json:"kind"`        // scalar, aggregate, window, table, macro
	Params      []Param  `json:"params"`      // in order
	Variadic    string   `json:"variadic"`    // the type of further arguments, "" when none
	Returns     string   `json:"returns"`     // the result type; "" for a table function
	Description string   `json:"description"` // one line; "" when the engine has none
	Examples    []string `json:"examples,omitempty"`
	// Syntax is how a special form is written where it is not a plain
	// call (CAST(value AS type), CASE WHEN … END); "" for a call.
	Syntax string `json:"syntax,omitempty"`
}

// Param is a parameter of a Function: Name may be empty (Postgres'
// unnamed arguments), Type may be empty (a macro's untyped parameter).
type Param struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Signature is the function as a call: name(a TYPE, b TYPE, ...) -> TYPE;
// a special form's Syntax, with its result type.
func (f Function) Signature() string {
	var b strings.Builder
	if f.Syntax != "" {
		b.WriteString(f.Syntax)
		if f.Returns != "" {
			b.WriteString(" -> " + f.Returns)
		}
		return b.String()
	}
	b.WriteString(f.Name)
	b.WriteByte('(')
	for i, p := range f.ParamLabels() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p)
	}
	b.WriteByte(')')
	if f.Returns != "" {
		b.WriteString(" -> " + f.Returns)
	}
	return b.String()
}

// ParamLabels are the parameters as Signature writes them, with the
// variadic tail ("TYPE...") last.
func (f Function) ParamLabels() []string {
	out := make([]string, 0, len(f.Params)+1)
	for _, p := range f.Params {
		out = append(out, strings.TrimSpace(p.Name+" "+p.Type))
	}
	if f.Variadic != "" {
		out = append(out, f.Variadic+"...")
	}
	return out
}

// FunctionCatalog is an optional capability: an engine that lists the
// functions it knows from its own catalog (DuckDB's duckdb_functions(),
// Postgres' pg_proc and pg_description). Version names the engine's
// version: the list is the same for the same version, so callers cache it
// by that.
type FunctionCatalog interface {
	Version(ctx context.Context) (string, error)
	Functions(ctx context.Context) ([]Function, error)
}

// WithSpecialForms is fns and those of forms whose name no function of
// fns has: the constructs an engine's parser turns into expressions of
// its own (COALESCE, CASE, CAST, EXTRACT, …), which its catalog does not
// list but a user calls like functions.
func WithSpecialForms(fns, forms []Function) []Function {
	have := make(map[string]bool, len(fns))
	for _, f := range fns {
		have[f.Name] = true
	}
	out := fns
	for _, f := range forms {
		if !have[f.Name] {
			out = append(out, f)
		}
	}
	return out
}

// FirstSentence cuts a description to its first line and sentence, for
// one-line listings.
func FirstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}
