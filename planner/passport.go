package planner

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// The answer passport says what a model's data may be believed to answer.
// Two halves:
//
//   - declared: answerable (full | sampled | partial | none) and caveats,
//     written in the MODEL header; outside the fingerprint;
//   - freshness: derived from the interval ledger, never declared. For an
//     incremental model, ContiguousThrough is the end of the run of done
//     intervals from the model's start; it stops at the first gap (missing
//     or failed) even when later intervals are done, so a partial total is
//     never presented as complete.
//
// The effective passport narrows both over the model's ancestry: the worst
// answerable value, every caveat (naming its model), and the earliest
// ContiguousThrough, each naming the ancestor that imposed it. A model
// without a ledger (FULL, VIEW, EXTERNAL …) imposes no time bound itself.

// Freshness is what the ledger says about an incremental model.
type Freshness struct {
	// ContiguousThrough is the end of the contiguous done run from the
	// model's start (the start itself when its first interval is not done).
	ContiguousThrough time.Time `json:"contiguousThrough"`
	// LatestInterval is the end of the latest done interval (nil: none).
	LatestInterval  *time.Time `json:"latestInterval"`
	FailedIntervals int        `json:"failedIntervals"`
	// HasGaps reports done intervals after ContiguousThrough.
	HasGaps bool `json:"hasGaps"`
}

// Caveat is one caveat with the model that declared it.
type Caveat struct {
	Model string `json:"model"`
	Text  string `json:"text"`
}

// EffectivePassport is the passport narrowed over a model's ancestry.
type EffectivePassport struct {
	Answerable string `json:"answerable"`
	// AnswerableFrom names the model whose declaration imposed Answerable
	// when it is worse than the model's own.
	AnswerableFrom string   `json:"answerableFrom,omitempty"`
	Caveats        []Caveat `json:"caveats"`
	// CompleteThrough is the earliest ContiguousThrough over the model and
	// its ancestors; nil when none of them has a ledger.
	CompleteThrough *time.Time `json:"completeThrough"`
	// LimitedBy names the model that set CompleteThrough (the most
	// upstream one on a tie: the cause, not its echo).
	LimitedBy string `json:"limitedBy,omitempty"`
	HasGaps   bool   `json:"hasGaps"`
}

// Passport is one model's declared and effective passport.
type Passport struct {
	Model       string   `json:"model"`
	Kind        string   `json:"kind"`
	Fingerprint string   `json:"fingerprint"`
	Answerable  string   `json:"answerable"`
	Caveats     []string `json:"caveats"`
	// Freshness is nil for models without an interval ledger.
	Freshness *Freshness        `json:"freshness"`
	Effective EffectivePassport `json:"effective"`
}

// passportNode is one model as the passport sees it.
type passportNode struct {
	name, kind, fp string
	answerable     string
	caveats        []string
	fresh          *Freshness
	parents        []string
	depth          int // distance from the sources; -1 until computed
}

// answerRank orders answerable values, best first; "" is full.
func answerRank(v string) int {
	if i := slices.Index(project.Answerables, v); i >= 0 {
		return i
	}
	return 0
}

func answerOf(v string) string {
	if v == "" {
		return project.Answerables[0]
	}
	return v
}

// freshnessOf derives an incremental model's freshness from its ledger.
func freshnessOf(g analysis.Grain, start time.Time, ivs []state.Interval) *Freshness {
	f := &Freshness{ContiguousThrough: start}
	var latest time.Time
	done := map[int64]bool{}
	for _, iv := range ivs {
		switch iv.Status {
		case state.IntervalDone:
			done[iv.Start.UTC().Unix()] = true
			if iv.End.After(latest) {
				latest = iv.End.UTC()
			}
		case state.IntervalFailed:
			f.FailedIntervals++
		}
	}
	t := start
	for done[t.Unix()] {
		t = g.Next(t)
	}
	f.ContiguousThrough = t
	if !latest.IsZero() {
		f.LatestInterval = &latest
	}
	f.HasGaps = latest.After(t)
	return f
}

// depthOf is the length of the longest path from a source to n.
func depthOf(n string, nodes map[string]*passportNode) int {
	nd := nodes[n]
	if nd == nil {
		return 0
	}
	if nd.depth >= 0 {
		return nd.depth
	}
	nd.depth = 0 // a cycle (never in a loaded project) stops here
	d := 0
	for _, p := range nd.parents {
		d = max(d, depthOf(p, nodes)+1)
	}
	nd.depth = d
	return d
}

// effectiveOf narrows name's passport over its ancestry.
func effectiveOf(name string, nodes map[string]*passportNode) EffectivePassport {
	var anc []*passportNode
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		nd := nodes[n]
		if nd == nil {
			return
		}
		anc = append(anc, nd)
		for _, p := range nd.parents {
			walk(p)
		}
	}
	walk(name)
	// Sources first: ties go to the most upstream model.
	sort.SliceStable(anc, func(i, j int) bool {
		di, dj := depthOf(anc[i].name, nodes), depthOf(anc[j].name, nodes)
		if di != dj {
			return di < dj
		}
		return anc[i].name < anc[j].name
	})
	self := nodes[name]
	e := EffectivePassport{Answerable: answerOf(self.answerable), Caveats: []Caveat{}}
	worst := answerRank(self.answerable)
	for _, nd := range anc {
		if r := answerRank(nd.answerable); r > worst {
			worst, e.Answerable, e.AnswerableFrom = r, answerOf(nd.answerable), nd.name
		}
		for _, c := range nd.caveats {
			e.Caveats = append(e.Caveats, Caveat{Model: nd.name, Text: c})
		}
		if nd.fresh == nil {
			continue
		}
		e.HasGaps = e.HasGaps || nd.fresh.HasGaps
		if t := nd.fresh.ContiguousThrough; e.CompleteThrough == nil || t.Before(*e.CompleteThrough) {
			e.CompleteThrough, e.LimitedBy = &t, nd.name
		}
	}
	return e
}

func (n *passportNode) passport(nodes map[string]*passportNode) Passport {
	cav := n.caveats
	if cav == nil {
		cav = []string{}
	}
	return Passport{Model: n.name, Kind: n.kind, Fingerprint: n.fp, Answerable: answerOf(n.answerable), Caveats: cav,
		Freshness: n.fresh, Effective: effectiveOf(n.name, nodes)}
}

// EnvPassports reports the passport of every model env points at, from the
// versions it points at and their ledgers (not from the files on disk).
// cfg supplies the project's start for models that declare none.
func EnvPassports(ctx context.Context, st state.Reader, cfg project.Config, env string) ([]Passport, error) {
	if err := analysis.ValidateEnv(env); err != nil {
		return nil, err
	}
	models, err := envModels(ctx, st, env)
	if err != nil {
		return nil, err
	}
	nodes := make(map[string]*passportNode, len(models))
	for name, m := range models {
		nd := &passportNode{name: name, kind: m.snap.Kind, fp: m.snap.Fingerprint, answerable: m.def.Answerable,
			caveats: m.def.Caveats, depth: -1}
		for p := range m.snap.Parents {
			nd.parents = append(nd.parents, p)
		}
		sort.Strings(nd.parents)
		if m.def.Kind.Name == project.KindIncrementalByTimeRange {
			g := m.grain()
			start, serr := analysis.ModelStart(&project.Model{Name: name, Start: m.def.Start, Interval: string(g)}, cfg)
			if serr == nil {
				ivs, err := st.Intervals(ctx, m.snap.Fingerprint)
				if err != nil {
					return nil, err
				}
				nd.fresh = freshnessOf(g, start, ivs)
			}
		}
		nodes[name] = nd
	}
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]Passport, 0, len(names))
	for _, n := range names {
		out = append(out, nodes[n].passport(nodes))
	}
	return out, nil
}

// analysisPassport is the passport of one model of an analyzed project,
// its ancestry read from the analysis and each ledger from the store under
// the analyzed fingerprints (what apply and run just computed).
func analysisPassport(ctx context.Context, a *analysis.Analysis, st state.Reader, name string) (Passport, error) {
	nodes := map[string]*passportNode{}
	var add func(string) error
	add = func(n string) error {
		if nodes[n] != nil {
			return nil
		}
		info := a.Models[n]
		if info == nil {
			return nil
		}
		m := info.Model
		nd := &passportNode{name: n, kind: string(m.Kind.Name), fp: info.Fingerprint, answerable: m.Answerable, caveats: m.Caveats,
			parents: m.Refs(), depth: -1}
		nodes[n] = nd
		if m.Kind.Name == project.KindIncrementalByTimeRange {
			if start, err := analysis.ModelStart(m, a.Project.Config); err == nil {
				ivs, err := st.Intervals(ctx, info.Fingerprint)
				if err != nil {
					return err
				}
				nd.fresh = freshnessOf(analysis.GrainOf(m), start, ivs)
			}
		}
		for _, p := range nd.parents {
			if err := add(p); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(name); err != nil {
		return Passport{}, err
	}
	return nodes[name].passport(nodes), nil
}
