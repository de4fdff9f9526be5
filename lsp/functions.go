package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/efmesh/efmesh/connect"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/sqlread"
	"github.com/efmesh/efmesh/sqlscan"
)

// functionIndex is the functions an engine knows, by name, every overload
// in the engine's order.
type functionIndex struct {
	version string
	names   []string // sorted
	byName  map[string][]engine.Function
}

func newFunctionIndex(version string, fns []engine.Function) *functionIndex {
	idx := &functionIndex{version: version, byName: map[string][]engine.Function{}}
	for _, f := range fns {
		if _, ok := idx.byName[f.Name]; !ok {
			idx.names = append(idx.names, f.Name)
		}
		idx.byName[f.Name] = append(idx.byName[f.Name], f)
	}
	sort.Strings(idx.names)
	return idx
}

// catalogs holds the function lists of the engines the session's projects
// use. A list is read once per engine version (the engine's catalog is the
// same for the same version); a failed read is forgotten, so a server that
// comes up later is read then.
var catalogs = struct {
	mu        sync.Mutex
	loads     map[string]*functionLoad  // by engine type and url
	byVersion map[string]*functionIndex // by engine version
}{loads: map[string]*functionLoad{}, byVersion: map[string]*functionIndex{}}

type functionLoad struct {
	ready chan struct{}
	idx   *functionIndex // nil when the engine could not say
}

// functionLoadTimeout bounds one read of an engine's catalog.
const functionLoadTimeout = 30 * time.Second

// functions is the function index of p's engine, waiting at most wait
// for a first read (a completion asked while it runs gets none).
func (s *Server) functions(ctx context.Context, p *project.Project, wait time.Duration) *functionIndex {
	if p == nil {
		return nil
	}
	key := connect.EngineKind(p).String() + " " + p.Config.Engine.URL
	catalogs.mu.Lock()
	l := catalogs.loads[key]
	if l == nil {
		l = &functionLoad{ready: make(chan struct{})}
		catalogs.loads[key] = l
		go func() {
			defer close(l.ready)
			defer func() {
				if r := recover(); r != nil {
					s.recoverPanicValue("reading the engine's functions", r)
				}
			}()
			idx, err := loadFunctions(p)
			if err != nil {
				s.logf(protocol.MessageTypeWarning, "%s: no function completion: %v", p.Root, err)
				catalogs.mu.Lock()
				delete(catalogs.loads, key)
				catalogs.mu.Unlock()
				return
			}
			l.idx = idx
		}()
	}
	catalogs.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-l.ready:
		return l.idx
	case <-t.C:
	case <-ctx.Done():
	}
	return nil
}

// loadFunctions reads the functions of p's engine, or takes those of the
// same engine version read before.
func loadFunctions(p *project.Project) (*functionIndex, error) {
	ctx, cancel := context.WithTimeout(context.Background(), functionLoadTimeout)
	defer cancel()
	cat, closer, err := connect.FunctionCatalog(ctx, p)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	version, err := cat.Version(ctx)
	if err != nil {
		return nil, err
	}
	catalogs.mu.Lock()
	idx := catalogs.byVersion[version]
	catalogs.mu.Unlock()
	if idx != nil {
		return idx, nil
	}
	fns, err := cat.Functions(ctx)
	if err != nil {
		return nil, err
	}
	idx = newFunctionIndex(version, fns)
	catalogs.mu.Lock()
	catalogs.byVersion[version] = idx
	catalogs.mu.Unlock()
	return idx, nil
}

// functionWait is how long completion and signature help wait for the
// first read of an engine's functions.
const functionWait = 2 * time.Second

// completeFunctions offers the engine's functions whose name starts with
// the word typed at [ws, off): one item per name, with its first
// signature and the engine's description.
func completeFunctions(d *docPos, idx *functionIndex, ws, off int) []protocol.CompletionItem {
	typed := strings.ToLower(string(d.f.src[ws:off]))
	if idx == nil || typed == "" {
		return nil
	}
	r := d.f.Mapper().Range(ws, off)
	i := sort.SearchStrings(idx.names, typed)
	var items []protocol.CompletionItem
	for ; i < len(idx.names) && strings.HasPrefix(idx.names[i], typed); i++ {
		fns := idx.byName[idx.names[i]]
		detail := fns[0].Signature()
		if len(fns) > 1 {
			detail += fmt.Sprintf(" (+%d overload%s)", len(fns)-1, plural(len(fns)-1))
		}
		it := protocol.CompletionItem{
			Label:    idx.names[i],
			Kind:     protocol.CompletionItemKindFunction,
			Detail:   detail,
			TextEdit: &protocol.TextEdit{Range: r, NewText: idx.names[i]},
		}
		if desc := engine.FirstSentence(fns[0].Description); desc != "" {
			it.Documentation = desc
		}
		items = append(items, it)
		if len(items) > maxCompletions {
			break
		}
	}
	return items
}

func (s *Server) signatureHelp(ctx context.Context, params json.RawMessage) (any, error) {
	var p protocol.SignatureHelpParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, ok := s.position(p.TextDocument.URI, p.Position)
	if !ok {
		return nil, nil
	}
	if h, ok := macroSignatureHelp(d); ok {
		return h, nil
	}
	if d.f.model == nil || d.off < d.f.model.BodyStart {
		return nil, nil
	}
	name, arg, ok := callAt(d.f.src, d.f.model.BodyStart, d.off)
	if !ok {
		return nil, nil
	}
	idx := s.functions(ctx, d.w.snap.proj, functionWait)
	if idx == nil || idx.byName[name] == nil {
		return nil, nil
	}
	return signatures(idx.byName[name], arg), nil
}

// maxSignatures bounds the overloads one signature help lists.
const maxSignatures = 20

// signatures is the signature help of a call with the cursor in its
// argument arg (0-based): every overload, the first that takes that many
// arguments active.
func signatures(fns []engine.Function, arg int) *protocol.SignatureHelp {
	h := &protocol.SignatureHelp{}
	active := -1
	for i, f := range fns {
		if i == maxSignatures {
			break
		}
		si := protocol.SignatureInformation{Label: f.Signature()}
		if desc := engine.FirstSentence(f.Description); desc != "" {
			si.Documentation = desc
		}
		labels := f.ParamLabels()
		for _, l := range labels {
			si.Parameters = append(si.Parameters, protocol.ParameterInformation{Label: l})
		}
		p := arg
		if f.Variadic != "" && p >= len(labels) {
			p = len(labels) - 1
		}
		si.ActiveParameter = uint32(max(p, 0))
		if active < 0 && (arg < len(f.Params) || f.Variadic != "") {
			active = i
		}
		h.Signatures = append(h.Signatures, si)
	}
	if active < 0 {
		active = 0
	}
	h.ActiveSignature = uint32(active)
	h.ActiveParameter = h.Signatures[active].ActiveParameter
	return h
}

// callAt finds the function call whose argument list holds off: its name
// (lower case) and the argument the cursor is in, counting the commas at
// the call's own depth. Strings and comments are skipped by the scanner.
func callAt(src []byte, from, off int) (name string, arg int, ok bool) {
	toks := sqlread.Scan(src, from, off)
	depth := 0
	for i := len(toks) - 1; i >= 0; i-- {
		t := toks[i]
		switch {
		case t.IsPunct(")"):
			depth++
		case t.IsPunct("(") && depth > 0:
			depth--
		case t.IsPunct("("):
			if i == 0 || toks[i-1].Kind != sqlscan.Ident {
				// A parenthesis of its own (a subquery, a list): the call,
				// if any, is further out.
				arg = 0
				continue
			}
			return toks[i-1].Val, arg, true
		case t.IsPunct(",") && depth == 0:
			arg++
		case t.IsPunct(";"):
			return "", 0, false
		}
	}
	return "", 0, false
}
