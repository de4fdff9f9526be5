package lsp

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/macro"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlscan"
)

// The editor's view of macros. A model file's parse (file.model) is the
// text as written; the project's model of the same file holds the
// expansion (project.Model.Expansion) with the calls as written and where
// each landed in the expanded text. Every feature here reads those: the
// expansion is made once, by the project's assembly.

// expandedModel is the project's model of the file f, when its body called
// macros.
func expandedModel(w *world, f *file) *project.Model {
	if f == nil || f.model == nil || f.model.Name == "" {
		return nil
	}
	pm := w.model(f.model.Name)
	if pm == nil || pm.Expansion == nil || pm.File != f.rel {
		return nil
	}
	return pm
}

// macroCallAt is the call written at off in a model file: the innermost
// whose name holds off when onName, else the innermost that holds off.
func macroCallAt(w *world, f *file, off int, onName bool) (macro.Call, *project.Model, bool) {
	pm := expandedModel(w, f)
	if pm == nil {
		return macro.Call{}, nil, false
	}
	best, found := macro.Call{}, false
	for _, c := range pm.Expansion.Calls {
		in := off >= c.Start && off <= c.NameEnd
		if !onName {
			in = off >= c.Start && off < c.End
		}
		if in && (!found || c.Start >= best.Start) {
			best, found = c, true
		}
	}
	return best, pm, found
}

// macroWordAt is the @name under off in src: a call or a use in a macro
// file or a model, by lower-case name and span (the @ included).
func macroWordAt(src []byte, off int) (name string, start, end int, ok bool) {
	i := min(off, len(src))
	for i > 0 && sqlscan.IsIdentByte(src[i-1]) {
		i--
	}
	if i > 0 && src[i-1] == '@' {
		i--
	}
	if i >= len(src) || src[i] != '@' || !sqlscan.IsIdentStart(src, i+1) {
		return "", 0, 0, false
	}
	e := sqlscan.IdentEnd(src, i+1)
	if off > e {
		return "", 0, 0, false
	}
	return strings.ToLower(string(src[i+1 : e])), i, e, true
}

// defNameAt is the definition whose name (MACRO name) is under off in a
// macro file.
func defNameAt(f *file, off int) (*macro.Def, bool) {
	for _, d := range f.defs {
		if off >= d.NameStart && off <= d.NameEnd {
			return d, true
		}
	}
	return nil, false
}

// macroHover is the hover of a macro call: its signature and doc, and
// the SQL this call expanded to.
func macroHover(w *world, pm *project.Model, c macro.Call) string {
	var b strings.Builder
	if c.Def != nil {
		fmt.Fprintf(&b, "**%s** · macro in `%s`", c.Def.Signature(), c.Def.File)
		if c.Def.Doc != "" {
			fmt.Fprintf(&b, "\n\n%s", c.Def.Doc)
		}
	} else if bi, ok := builtinNamed(c.Name); ok {
		fmt.Fprintf(&b, "**@%s(%s)** · built-in macro\n\n%s", bi.Name, bi.Params, bi.Doc)
	} else if d := w.snap.proj.Macros[c.Name]; d != nil {
		fmt.Fprintf(&b, "**%s** · macro in `%s`", d.Signature(), d.File)
	} else {
		fmt.Fprintf(&b, "**@%s**", c.Name)
	}
	if c.OutEnd > c.OutStart && c.OutEnd <= len(pm.Source) {
		exp := strings.TrimSpace(string(pm.Source[c.OutStart:c.OutEnd]))
		const limit = 4000
		if len(exp) > limit {
			exp = exp[:limit] + "\n…"
		}
		fmt.Fprintf(&b, "\n\nexpands to:\n```sql\n%s\n```", exp)
	} else {
		b.WriteString("\n\nexpands to nothing here")
	}
	return b.String()
}

// defHover is the hover of a project macro's name in its file.
func defHover(w *world, d *macro.Def) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** · macro", d.Signature())
	if d.Doc != "" {
		fmt.Fprintf(&b, "\n\n%s", d.Doc)
	}
	if w.snap.proj != nil {
		callers := w.snap.proj.MacroCallers(strings.ToLower(d.Name))
		switch len(callers) {
		case 0:
			b.WriteString("\n\ncalled by no model")
		default:
			shown := callers
			if len(shown) > 10 {
				shown = shown[:10]
			}
			fmt.Fprintf(&b, "\n\ncalled by %d model(s): %s", len(callers), strings.Join(shown, ", "))
			if len(callers) > len(shown) {
				b.WriteString(", …")
			}
		}
	}
	return b.String()
}

func builtinNamed(name string) (macro.Builtin, bool) {
	for _, b := range macro.Builtins {
		if strings.EqualFold(b.Name, name) {
			return b, true
		}
	}
	return macro.Builtin{}, false
}

// macroHoverAt answers a hover in a model or macro file about a macro.
func macroHoverAt(d *docPos, onNameOnly bool) (string, int, int, bool) {
	w := d.w
	if w.snap.proj == nil {
		return "", 0, 0, false
	}
	if len(d.f.defs) > 0 {
		if def, ok := defNameAt(d.f, d.off); ok {
			return defHover(w, def), def.NameStart, def.NameEnd, true
		}
		if name, s, e, ok := macroWordAt(d.f.src, d.off); ok {
			if def := w.snap.proj.Macros[name]; def != nil {
				return defHover(w, def), s, e, true
			}
			if bi, ok := builtinNamed(name); ok {
				return fmt.Sprintf("**@%s(%s)** · built-in macro\n\n%s", bi.Name, bi.Params, bi.Doc), s, e, true
			}
		}
		return "", 0, 0, false
	}
	c, pm, ok := macroCallAt(w, d.f, d.off, onNameOnly)
	if !ok {
		return "", 0, 0, false
	}
	return macroHover(w, pm, c), c.Start, c.NameEnd, true
}

// macroDefinitionAt is where the macro called at d.off is defined.
func macroDefinitionAt(d *docPos) (protocol.Location, bool) {
	w := d.w
	if w.snap.proj == nil {
		return protocol.Location{}, false
	}
	name, _, _, ok := macroWordAt(d.f.src, d.off)
	if !ok {
		return protocol.Location{}, false
	}
	if def := w.snap.proj.Macros[name]; def != nil {
		return w.location(def.File, def.NameStart, def.NameEnd), true
	}
	return protocol.Location{}, false
}

// macroNameAt is the project macro named at d.off: a call's name or a
// definition's.
func macroNameAt(d *docPos) (*macro.Def, int, int, bool) {
	proj := d.w.snap.proj
	if proj == nil {
		return nil, 0, 0, false
	}
	if def, ok := defNameAt(d.f, d.off); ok {
		return proj.Macros[strings.ToLower(def.Name)], def.NameStart, def.NameEnd, proj.Macros[strings.ToLower(def.Name)] != nil
	}
	name, s, e, ok := macroWordAt(d.f.src, d.off)
	if !ok || proj.Macros[name] == nil {
		return nil, 0, 0, false
	}
	return proj.Macros[name], s + 1, e, true
}

// macroSpans lists where the project names a project macro: its
// definition (use false) and every call, in model bodies and in macro
// files, by the name's span (without the @).
func macroSpans(w *world, def *macro.Def) []nameSpan {
	name := strings.ToLower(def.Name)
	out := []nameSpan{{rel: def.File, start: def.NameStart, end: def.NameEnd}}
	for _, rel := range slices.Sorted(maps.Keys(w.snap.files)) {
		f := w.snap.files[rel]
		from := 0
		switch {
		case f.model != nil:
			from = f.model.BodyStart
		case f.audit != nil:
			from = f.audit.BodyStart
		case len(f.defs) > 0:
		default:
			continue
		}
		for sc := sqlscan.NewScanner(f.src, from); ; {
			t := sc.Next()
			if t.Kind == sqlscan.EOF {
				break
			}
			if t.Kind == sqlscan.Macro && sqlscan.MacroName(f.src, t) == name {
				out = append(out, nameSpan{rel: rel, start: t.Start + 1, end: sqlscan.IdentEnd(f.src, t.Start+1), use: true})
			}
		}
	}
	return out
}

// macroReferences lists every call of the macro at d.off.
func macroReferences(d *docPos, includeDecl bool) ([]protocol.Location, bool) {
	def, _, _, ok := macroNameAt(d)
	if !ok {
		return nil, false
	}
	var out []protocol.Location
	for _, sp := range macroSpans(d.w, def) {
		if !sp.use && !includeDecl {
			continue
		}
		out = append(out, d.w.location(sp.rel, sp.start, sp.end))
	}
	return out, true
}

// renameMacro renames the project macro at d.off: its definition and
// every call.
func renameMacro(d *docPos, newName string) (*renameWorkspaceEdit, error) {
	def, _, _, ok := macroNameAt(d)
	if !ok {
		return nil, fmt.Errorf("no project macro here")
	}
	typed := strings.TrimPrefix(strings.TrimSpace(newName), "@")
	b := []byte(typed)
	if !sqlscan.IsIdentStart(b, 0) || sqlscan.IdentEnd(b, 0) != len(b) {
		return nil, fmt.Errorf("%q is not a macro name: letters, digits and _", newName)
	}
	lower := strings.ToLower(typed)
	if macro.IsBuiltin(lower) || macro.IsPrimitive(lower) {
		return nil, fmt.Errorf("@%s is a built-in macro", typed)
	}
	if strings.EqualFold(typed, def.Name) {
		return &renameWorkspaceEdit{}, nil
	}
	if d.w.snap.proj.Macros[lower] != nil {
		return nil, fmt.Errorf("a macro named %s already exists", typed)
	}
	return d.w.annotatedEdit(macroSpans(d.w, def), typed, fmt.Sprintf("Rename macro %s to %s", def.Name, typed)), nil
}

// completeMacro offers macros after "@": the project's with their
// parameters, the built-ins, the run variables and the file's @DEFs.
func completeMacro(d *docPos, off int) ([]protocol.CompletionItem, bool) {
	src := d.f.src
	ws := off
	for ws > 0 && sqlscan.IsIdentByte(src[ws-1]) {
		ws--
	}
	if ws == 0 || src[ws-1] != '@' || (ws >= 2 && (src[ws-2] == '<' || src[ws-2] == '@')) {
		return nil, false
	}
	prefix := strings.ToLower(string(src[ws:off]))
	rng := d.f.Mapper().Range(ws, off)
	var items []protocol.CompletionItem
	add := func(label, detail, doc string, kind protocol.CompletionItemKind, insert string) {
		if !strings.HasPrefix(strings.ToLower(label), prefix) {
			return
		}
		it := protocol.CompletionItem{Label: label, Kind: kind, Detail: detail, TextEdit: &protocol.TextEdit{Range: rng, NewText: insert}}
		if doc != "" {
			it.Documentation = protocol.MarkupContent{Kind: protocol.Markdown, Value: doc}
		}
		items = append(items, it)
	}
	if proj := d.w.snap.proj; proj != nil {
		for _, n := range slices.Sorted(maps.Keys(proj.Macros)) {
			def := proj.Macros[n]
			add(def.Name, def.Signature(), def.Doc, protocol.CompletionItemKindFunction, def.Name)
		}
	}
	for _, b := range macro.Builtins {
		add(b.Name, "@"+b.Name+"("+b.Params+")", b.Doc, protocol.CompletionItemKindFunction, b.Name)
	}
	for _, v := range []string{"ref", "start", "end", "var", "start_ds", "end_ds", "start_ts", "end_ts", "execution_ds", "this_model", "env"} {
		add(v, "@"+v, "", protocol.CompletionItemKindVariable, v)
	}
	// The file's own @DEFs.
	for sc := sqlscan.NewScanner(src, 0); ; {
		t := sc.Next()
		if t.Kind == sqlscan.EOF {
			break
		}
		if t.Kind == sqlscan.Macro && sqlscan.MacroName(src, t) == "def" {
			if c, ok := macro.CallAt(src, t.Start); ok && len(c.Args) > 0 {
				n := strings.TrimPrefix(string(src[c.Args[0].Start:c.Args[0].End]), "@")
				add(n, "@DEF in this file", "", protocol.CompletionItemKindVariable, n)
			}
		}
	}
	if items == nil {
		items = []protocol.CompletionItem{}
	}
	return items, true
}

// macroSignatureHelp is the signature of the macro call the cursor is in,
// its active parameter the argument at off.
func macroSignatureHelp(d *docPos) (*protocol.SignatureHelp, bool) {
	src := d.f.src
	// The innermost call around off: scan back for an unclosed "(" right
	// after @name.
	depth := 0
	for i := min(d.off, len(src)) - 1; i >= 0; i-- {
		switch src[i] {
		case ')', ']':
			depth++
		case '[':
			depth--
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			j := i
			for j > 0 && (src[j-1] == ' ' || src[j-1] == '\t') {
				j--
			}
			k := j
			for k > 0 && sqlscan.IsIdentByte(src[k-1]) {
				k--
			}
			if k == 0 || k == j || src[k-1] != '@' {
				return nil, false
			}
			name := strings.ToLower(string(src[k:j]))
			c, ok := macro.CallAt(src, k-1)
			if !ok {
				return nil, false
			}
			active := 0
			for n, a := range c.Args {
				if d.off > a.End || n > 0 && d.off >= a.Start {
					active = n
				}
			}
			if d.off > i && len(c.Args) > 0 && d.off > c.Args[len(c.Args)-1].End {
				active = len(c.Args) - 1
			}
			var label, doc string
			var params []string
			var def *macro.Def
			if d.w.snap.proj != nil {
				def = d.w.snap.proj.Macros[name]
			}
			if def != nil {
				label, doc = def.Signature(), def.Doc
				for _, p := range def.Params {
					params = append(params, string(def.Src[p.Start:p.End]))
				}
			} else if b, ok := builtinNamed(name); ok {
				label, doc = "@"+b.Name+"("+b.Params+")", b.Doc
				params = strings.Split(b.Params, ", ")
			} else {
				return nil, false
			}
			sig := protocol.SignatureInformation{Label: label, Documentation: doc}
			for _, p := range params {
				sig.Parameters = append(sig.Parameters, protocol.ParameterInformation{Label: p})
			}
			return &protocol.SignatureHelp{Signatures: []protocol.SignatureInformation{sig}, ActiveParameter: uint32(min(active, max(len(params)-1, 0)))}, true
		}
	}
	return nil, false
}
