package lsp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/planner"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/workspace"
	"github.com/efmesh/efmesh/workspace/digest"
)

// Plan hints are a job of their own beside the checker: after each check
// the hinter plans the analysis against the editor's environment and finds
// the breaking changes that rebuild models downstream. What a hint says
// depends only on the models' fingerprints, the environment and what the
// state store holds (its version), so the hints are kept under that key:
// an edit that moves no fingerprint, in a store nobody wrote, plans
// nothing.
//
// The checker publishes each check once, with the hints: it waits for the
// hinter up to hintWait. When the store is slower than that, it publishes
// with the hints it has and the hinter publishes again when it is done.

// hintTimeout bounds the state store reads of the hints of one check.
const hintTimeout = 2 * time.Second

// hintWait is how long the checker waits for the hints of a check before
// it publishes without them.
var hintWait = time.Second

// CodeBreakingChange marks the hint on a model whose change is breaking
// for the models downstream of it.
const CodeBreakingChange = "breaking-change"

// hint is the message of a hint on a model's MODEL header, or, with
// problem set, an error the plan found that the check cannot (what an
// EXTERNAL model reads is missing or of another shape: plan, apply and run
// stop on it), published where the plan reports it.
type hint struct {
	model, msg string
	problem    bool
	file, code string
	rng        project.Range
}

// hinter is a view's plan hints job.
type hinter struct {
	v    *view
	kick chan struct{} // buffered: a newer result waits

	mu      sync.Mutex
	want    *checkResult  // the latest result to hint
	handled uint64        // seq of the latest result hinted
	done    chan struct{} // closed when handled moves
	key     string        // what hints were computed from
	hints   []hint
	gen     uint64 // moves whenever hints change
}

func newHinter(v *view) *hinter {
	return &hinter{v: v, kick: make(chan struct{}, 1), done: make(chan struct{})}
}

// request asks for the hints of res.
func (h *hinter) request(res *checkResult) {
	h.mu.Lock()
	h.want = res
	h.mu.Unlock()
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// wait waits until the hints of seq (or a newer result) are known, at most
// d; it reports whether they are.
func (h *hinter) wait(ctx context.Context, seq uint64, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		h.mu.Lock()
		handled, done := h.handled, h.done
		h.mu.Unlock()
		if handled >= seq {
			return true
		}
		select {
		case <-done:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// settled reports whether the hints of res are known and res carries them.
func (h *hinter) settled(res *checkResult) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.handled >= res.snap.seq && h.gen == res.hintGen
}

// place returns the diagnostics of res's check with the latest hints on
// their models, and the generation of those hints. A result with errors
// gets none, as its plan would.
func (h *hinter) place(res *checkResult) ([]project.Diagnostic, uint64) {
	h.mu.Lock()
	hints, gen := h.hints, h.gen
	h.mu.Unlock()
	if res.analysis == nil || res.analysis.Errors() || len(hints) == 0 {
		return res.checked, gen
	}
	out := slices.Clone(res.checked)
	for _, hn := range hints {
		if hn.problem {
			out = append(out, project.Diagnostic{File: hn.file, Range: hn.rng, Severity: project.SeverityError, Code: hn.code, Message: hn.msg})
			continue
		}
		info := res.analysis.Models[hn.model]
		if info == nil {
			continue
		}
		m := info.Model
		start := m.Header.Start.Offset
		out = append(out, project.NewDiagnostic(m.File, m.Source, start, min(start+len("MODEL"), len(m.Source)), project.SeverityHint, CodeBreakingChange, hn.msg))
	}
	project.SortDiagnostics(out)
	return out, gen
}

// run is the hinter's goroutine: it hints the latest result asked for,
// skipping those a newer one replaced.
func (h *hinter) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.kick:
		}
		h.mu.Lock()
		res := h.want
		h.mu.Unlock()
		if res == nil {
			continue
		}
		h.hint(ctx, res)
	}
}

// hint computes the hints of res (or takes them from the last ones when
// their key did not move), records them and, when they changed, has the
// checker publish them.
func (h *hinter) hint(ctx context.Context, res *checkResult) {
	var (
		key   string
		hints []hint
	)
	func() {
		defer func() {
			if r := recover(); r != nil {
				key, hints = "", nil
				h.v.s.recoverPanicValue(fmt.Sprintf("plan hints of %s", h.v.root), r)
			}
		}()
		key, hints = h.compute(ctx, res)
	}()
	if ctx.Err() != nil {
		return
	}
	h.mu.Lock()
	changed := !slices.Equal(hints, h.hints)
	if changed {
		h.hints = hints
		h.gen++
	}
	h.key = key
	if res.snap.seq > h.handled {
		h.handled = res.snap.seq
	}
	close(h.done)
	h.done = make(chan struct{})
	h.mu.Unlock()
	if changed {
		h.v.ck.republish()
	}
}

// compute returns the key of res's hints and the hints: none without a
// clean analysis and an existing state store (never created here). A plan
// that fails gives no hints and the key "", so the next check plans again.
func (h *hinter) compute(ctx context.Context, res *checkResult) (string, []hint) {
	p := res.snap.proj
	if res.analysis == nil || res.analysis.Errors() || p == nil {
		return "none", nil
	}
	// The hints are a nicety: a slow store does not get to hold them up.
	ctx, cancel := context.WithTimeout(ctx, hintTimeout)
	defer cancel()
	_, version, err := h.v.store.reader(ctx, p)
	if err != nil {
		return "", nil
	}
	if version == "none" {
		return "none", nil
	}
	env := h.v.s.environment()
	key := env + "/" + version + "/" + fingerprints(res.analysis) + "/" + sourcesVersion(p)
	h.mu.Lock()
	if key == h.key {
		hints := h.hints
		h.mu.Unlock()
		return key, hints
	}
	h.mu.Unlock()
	plan, err := h.v.planFor(ctx, res, env)
	var pe *planner.ProblemsError
	if errors.As(err, &pe) {
		// Not kept under the key: the files an EXTERNAL model reads are
		// not in it, so the next check plans again.
		return "", problemHints(pe.Diagnostics)
	}
	if err != nil {
		return "", nil
	}
	return key, planHints(plan, res, env)
}

// problemHints are the errors a plan refused the project with.
func problemHints(ds []project.Diagnostic) []hint {
	var out []hint
	for _, d := range ds {
		if d.Severity == project.SeverityError && d.File != "" {
			out = append(out, hint{msg: d.Message, problem: true, file: d.File, code: d.Code, rng: d.Range})
		}
	}
	return out
}

// sourcesVersion is what moves when the files EXTERNAL models of p read
// change (the plan checks them); a new value each time when they cannot be
// watched.
func sourcesVersion(p *project.Project) string {
	if v := digest.SourcesVersion(p); v != "" {
		return v
	}
	return "unwatched " + strconv.FormatInt(time.Now().UnixNano(), 10)
}

// fingerprints sums up the fingerprints of every analyzed model.
func fingerprints(a *analysis.Analysis) string {
	lines := make([]string, 0, len(a.Models))
	for name, info := range a.Models {
		lines = append(lines, name+" "+info.Fingerprint)
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:12])
}

// planHints are the hints of plan: one on every model whose change against
// env is breaking and rebuilds models downstream, naming them and the
// parse-tree paths that made the change breaking.
func planHints(plan *planner.Plan, res *checkResult, env string) []hint {
	build := map[string]bool{}
	for _, mp := range plan.Models {
		build[mp.Name] = mp.Build
	}
	var out []hint
	for _, mp := range plan.Models {
		if mp.Change != planner.Breaking || res.analysis.Models[mp.Name] == nil {
			continue
		}
		var rebuilt []string
		for _, d := range res.snap.proj.Descendants(mp.Name) {
			if build[d.Name] {
				rebuilt = append(rebuilt, d.Name)
			}
		}
		if len(rebuilt) == 0 {
			continue
		}
		msg := fmt.Sprintf("breaking change against %s: rebuilds %d downstream model%s (%s)", env, len(rebuilt), plural(len(rebuilt)), strings.Join(rebuilt, ", "))
		switch {
		case len(mp.Diff) > 0:
			// The edit as SQL, one clause a line, the parse-tree paths as
			// the detail (the same as plan --explain).
			var b strings.Builder
			workspace.WriteClauseDiff(&b, "", mp.Diff)
			msg += "\n" + b.String()
			if len(mp.Paths) > 0 {
				msg += "detail (parse tree): " + strings.Join(mp.Paths, ", ")
			}
			msg = strings.TrimSuffix(msg, "\n")
		case len(mp.Paths) > 0:
			msg += "; changed: " + strings.Join(mp.Paths, ", ")
		}
		if len(mp.Rebinds) > 0 {
			// Why the appended columns are breaking: the children that
			// would read them (the same lines as plan --explain).
			msg += "\n" + strings.Join(mp.Rebinds, "\n")
		}
		out = append(out, hint{model: mp.Name, msg: msg})
	}
	return out
}
