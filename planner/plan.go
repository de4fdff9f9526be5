package planner

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// Change is the category of a model in a plan.
type Change string

const (
	Added        Change = "added"
	Breaking     Change = "breaking"
	NonBreaking  Change = "non-breaking"
	Indirect     Change = "indirect"
	ForwardOnly  Change = "forward-only"
	MetadataOnly Change = "metadata-only"
	Removed      Change = "removed"
	Unchanged    Change = "unchanged"
)

// ModelPlan is one model's line in a plan: what every line has (name,
// kind, category, fingerprint, what is built), then the parts only some
// lines have, each its own type: the ranges an incremental model computes
// (Incremental), a directly changed model's edit (Edit), the table a
// forward-only or reusing change takes over (Inheritance), an SCD_TYPE_2
// model's history (History), a FULL model's refill (Refilling), what the
// warehouse check found (Presence) and what another environment's partial
// build covers (Coverage). The parts are embedded: their fields read as
// the line's own, and the JSON form is one flat object, in this order.
type ModelPlan struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Change      Change `json:"change"`
	Fingerprint string `json:"fingerprint"`
	// Previous is the fingerprint the environment points at now.
	Previous string `json:"previous,omitempty"`
	// Build is true when the snapshot's physical relation must be built;
	// false when an existing one is reused (promotion only).
	Build         bool   `json:"build"`
	PhysicalTable string `json:"physicalTable,omitempty"`
	Incremental
	// Cause names the changed ancestors that moved an indirect change.
	Cause   []string `json:"cause,omitempty"`
	Explain []string `json:"explain"`
	Edit
	Inheritance
	// ReclassifiedFrom is the category the AST gave before the operator's
	// --reclassify verdict (or before a forward-only change).
	ReclassifiedFrom Change `json:"reclassifiedFrom,omitempty"`
	// Warnings are findings that do not stop the plan (window-over-batch).
	Warnings []Warning `json:"warnings,omitempty"`
	History
	Refilling
	// Redacted lists the columns the environment's physics of the model
	// leaves out (a redacted environment; redact.go).
	Redacted []string `json:"redacted,omitempty"`
	Presence
	Coverage
}

// Incremental is what an INCREMENTAL_BY_TIME_RANGE model's line adds: the
// ranges its ledger lacks (fillBackfill). Backfill is never nil in a
// plan's JSON: an empty list says nothing is due.
type Incremental struct {
	Backfill []analysis.Range `json:"backfill"`
	// Intervals counts the intervals of Backfill (day or hour each).
	Intervals int `json:"intervals,omitempty"`
}

// Edit is a directly changed model's own edit (categorize).
type Edit struct {
	// Diff is the edit as SQL: the clauses of its query whose text differs
	// from the previous snapshot's definition. Paths are the parse-tree
	// parts the category was decided on (also in Explain), the detail
	// behind the diff.
	Diff  []analysis.ClauseChange `json:"diff,omitempty"`
	Paths []string                `json:"paths,omitempty"`
	// Rebinds are the direct children that would read an appended
	// column ("child: why": a NATURAL JOIN's join columns, what a name
	// resolves to, what a * covers), which make the append breaking.
	Rebinds []string `json:"rebinds,omitempty"`
}

// Inheritance is what a line that takes over its previous snapshot's
// table adds: physics reuse, or a forward-only change (inheritance).
type Inheritance struct {
	// ReusedFrom is the snapshot whose physical relation and done
	// intervals this one takes over (physics reuse, forward-only).
	ReusedFrom string `json:"reusedFrom,omitempty"`
	// AddsColumns and Retyped are what a forward-only change does to the
	// table it inherits, decided by the plan from the old and new columns
	// and done by apply as said: the columns added (NULL in history,
	// ALTER TABLE … ADD COLUMN) and those whose type the engine widens
	// in place without changing a value (ALTER COLUMN … TYPE).
	AddsColumns []string `json:"addsColumns,omitempty"`
	Retyped     []Retype `json:"retyped,omitempty"`
	// SharedWith names the other environments that serve the table a
	// forward-only change inherits: they see what apply writes there
	// (new rows, added and widened columns); SharedText says it. For a
	// table that Differs, the environments that share its snapshot.
	SharedWith []string `json:"sharedWith,omitempty"`
}

// History is what an SCD_TYPE_2 model's line adds when its environment
// moves to another version (plan_history.go).
type History struct {
	// RebuildsHistory: the environment moves to another history table and
	// the versions accumulated so far are not carried over. Apply needs
	// the operator's --rebuild-history.
	RebuildsHistory bool `json:"rebuildsHistory,omitempty"`
	// CopiesHistoryFrom: the model keeps its history while another
	// environment serves the previous history table: the new snapshot's
	// table (Build) starts as a copy of that one, and versions are merged
	// there, never into the table the other reads.
	CopiesHistoryFrom string `json:"copiesHistoryFrom,omitempty"`
}

// Refilling is what a FULL (or unique-key) model whose existing table apply
// fills again adds.
type Refilling struct {
	// Refill lists the models the refill waits for: the restated models
	// (WithRestate) it reads through its ancestors, or the models whose
	// intervals outside a preview the plan completes.
	Refill []string `json:"refill,omitempty"`
	// RefillWhy is why: RefillRestated or RefillPreview (preview.go).
	RefillWhy string `json:"refillWhy,omitempty"`
}

// Presence is what the warehouse check (presence.go) found on the line.
type Presence struct {
	// Missing is true when the store trusts a relation of the model that
	// the warehouse lacks: its physical relation (then Build is true) or
	// the environment's view; Reason says which.
	Missing bool   `json:"missing,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Differs is set with Missing on a physical table that is there with
	// columns other than its snapshot's (altered by hand): apply drops it
	// and builds it again; SharedWith names the other environments that
	// point at the same snapshot, which read the rebuilt table too.
	Differs bool `json:"differs,omitempty"`
	// StaleView is the view an earlier efmesh made for this EXTERNAL model
	// in the environment (this one reads it in place), which apply drops
	// (presence.go finds it; promote.go drops it).
	StaleView string `json:"staleView,omitempty"`
}

// Coverage is what a line whose snapshot another environment built only
// in part (a preview) adds: the ranges its ledger holds; Backfill
// computes the rest. CoveredIn names the environments serving it.
type Coverage struct {
	Covered   []analysis.Range `json:"covered,omitempty"`
	CoveredIn []string         `json:"coveredIn,omitempty"`
}

// MarshalJSON writes the line as one flat object; a line without a
// backfill says so with an empty list.
func (mp ModelPlan) MarshalJSON() ([]byte, error) {
	type flat ModelPlan // without this method
	if mp.Backfill == nil {
		mp.Backfill = []analysis.Range{}
	}
	return json.Marshal(flat(mp))
}

// Retype is a column whose type a forward-only change widens in place.
type Retype struct {
	Column string `json:"column"`
	From   string `json:"from"`
	To     string `json:"to"`
}

func (r Retype) String() string { return r.Column + " " + r.From + " → " + r.To }

// Plan is the difference between the project and an environment.
type Plan struct {
	Env        string      `json:"env"`
	HasChanges bool        `json:"hasChanges"`
	Models     []ModelPlan `json:"models"`
	// Preview is the range of history the environment covers when it is
	// shorter than the project's (WithPreview); nil: all of it.
	Preview *Preview `json:"preview,omitempty"`
	// LeftOut are the direct changes a plan of a selection did not take
	// (selection.go): the environment keeps those models as they are.
	LeftOut []LeftOut `json:"leftOut,omitempty"`
	// LeftOutFrom is the environment whose versions the left-out models
	// keep when it is not Env: prod, for an environment not yet created.
	LeftOutFrom string `json:"leftOutFrom,omitempty"`
	// DueRefresh names the FULL models whose cron fired since their last
	// refresh and which the plan leaves as they are: apply does not
	// refresh for a cron, the next efmesh run does (WithDueRefreshes).
	DueRefresh []string `json:"dueRefresh,omitempty"`
	// Reverts are the models the plan moves back to a version another
	// user's later apply replaced (fillReverts).
	Reverts []Revert `json:"reverts,omitempty"`
	// Warnings are findings on the whole plan that do not stop it (a
	// warehouse apply cannot write); each model's are its own.
	Warnings []Warning `json:"warnings,omitempty"`
	// Unrecorded is what the warehouse holds of efmesh's that the state
	// store does not know, looked for when the store knows nothing of
	// the environment (findUnrecorded); nil when nothing.
	Unrecorded *Unrecorded `json:"unrecorded,omitempty"`

	analysis *analysis.Analysis
	current  map[string]state.Pointer
	stored   map[string]bool // fingerprints the store already holds
	// physFP maps a model to the fingerprint naming its physical relation
	// where that is not its own (an inherited table).
	physFP map[string]string
	// reuse maps a model to the previous snapshot it inherits from.
	reuse map[string]string
	// storedTable maps a model whose line uses a relation the store says
	// is built to that snapshot's physical table as stored: the name it
	// was built under, whatever naming (or identifier shortening) efmesh
	// uses now (presence.go checks it).
	storedTable map[string]string
	// unconfirmed lists the SCD_TYPE_2 models whose history the plan
	// rebuilds without WithRebuildHistory: Apply refuses it.
	unconfirmed []string
	// restated maps a model to the range the plan recomputes whatever its
	// ledger says (WithRestate).
	restated map[string]analysis.Range
	// refills maps a FULL descendant of a restated model to the restated
	// models it reads (ModelPlan.Refill).
	refills map[string][]string
	// newAudits lists, per model whose data nothing rebuilds
	// (metadata-only, or a stored built snapshot under other metadata),
	// the audits (as written) its stored definition lacks: apply runs them
	// on the existing data.
	newAudits map[string][]string
	// redefined lists the models, neither unchanged nor metadata-only,
	// whose snapshot the store holds under another definition than the
	// project's: apply records the project's after the promotion.
	redefined map[string]bool
	// unrecorded lists the unchanged models whose stored definition was
	// written before efmesh recorded audit files: apply records them, so
	// the next edit of such a file is a change the plan shows.
	unrecorded []string
	// removedExternal holds the definitions of the EXTERNAL models the
	// plan removes: their source must survive the removal (promote.go).
	removedExternal map[string]analysis.Definition
	// lost holds the fingerprints whose physical relation the store
	// trusts but the warehouse lacks: rebuilt from an empty ledger.
	lost map[string]bool
	// differs maps the models whose physical table has columns other than
	// their snapshot's to that table: apply drops it before building.
	differs map[string]string
	// differsView holds the models of differs whose name the warehouse
	// holds as a view (a table efmesh built replaced by hand): apply
	// drops that view instead.
	differsView map[string]bool
	// envTables holds the models whose environment view is a table in
	// the warehouse (replaced by hand): the promotion drops the table
	// before making the view again.
	envTables map[string]bool
	// copyHistory maps an SCD_TYPE_2 model to the fingerprint naming the
	// history table its new table is initialised from (CopiesHistoryFrom).
	copyHistory map[string]string
	// elsewhere maps the physical tables the other environments serve to
	// those environments; loaded on first use (servedElsewhere).
	elsewhere map[string][]string
	// previewChanged: the plan's Preview differs from the one the
	// environment recorded (preview.go).
	previewChanged bool
}

// physicalFP is the fingerprint naming a model's physical relation.
func (p *Plan) physicalFP(name, fp string) string {
	if f, ok := p.physFP[name]; ok {
		return f
	}
	return fp
}

// FingerprintPrefix reads the fingerprint prefix from a physical table name
// ("_efmesh.schema__table__1a2b3c4d").
func FingerprintPrefix(table string) string {
	if i := strings.LastIndex(table, "__"); i >= 0 && len(table)-i-2 == 8 {
		return table[i+2:]
	}
	return ""
}

// Analysis returns the analysis the plan was made from.
func (p *Plan) Analysis() *analysis.Analysis { return p.analysis }

// RecordsAuditSources reports whether an apply of p writes the store even
// when p changes nothing: unchanged models whose stored definitions
// predate their audit files get them recorded (RecordAuditSources).
func (p *Plan) RecordsAuditSources() bool { return len(p.unrecorded) > 0 }

// Counts tallies the models of each change.
func (p *Plan) Counts() map[Change]int {
	out := map[Change]int{}
	for _, m := range p.Models {
		out[m.Change]++
	}
	return out
}

// Promotes counts the models whose environment view the plan creates or
// repoints. Virtual models (EMBEDDED, EXTERNAL) have no view.
func (p *Plan) Promotes() int {
	n := 0
	for _, m := range p.Models {
		if m.Change != Removed && (m.Change != Unchanged || m.Missing) && !project.KindName(m.Kind).Virtual() {
			n++
		}
	}
	return n
}

// Builds counts the physical relations the plan builds.
func (p *Plan) Builds() int {
	n := 0
	for _, m := range p.Models {
		if m.Build {
			n++
		}
	}
	return n
}

// Intervals counts the intervals the plan computes, over all models.
func (p *Plan) Intervals() int {
	n := 0
	for _, m := range p.Models {
		n += m.Intervals
	}
	return n
}

// DefaultBackfillLimit is the largest backfill (in intervals, over all
// models) the CLI plans without a confirmation: more usually means a start
// that is wrong (0001-01-01 with hourly intervals is 17 million).
const DefaultBackfillLimit = 100_000

// LargeBackfillError is a plan that computes more intervals than its
// limit (WithBackfillLimit). Nothing was changed.
type LargeBackfillError struct {
	Intervals int
	Limit     int
	Models    []ModelPlan // the models with a backfill, the largest first
}

func (e *LargeBackfillError) Error() string {
	var parts []string
	for i, m := range e.Models {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more model(s)", len(e.Models)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s from %s", m.Name, Thousands(m.Intervals), m.Backfill[0].Start.UTC().Format(time.RFC3339)))
	}
	return fmt.Sprintf("the plan backfills %s intervals, more than %s (%s); check the start in efmesh.yaml or the MODEL header",
		Thousands(e.Intervals), Thousands(e.Limit), strings.Join(parts, ", "))
}

// Thousands writes n with thousands separators: 17,746,392.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// ProblemsError is returned when the project has errors; the plan cannot
// be made and nothing was changed.
type ProblemsError struct {
	Diagnostics []project.Diagnostic
}

func (e *ProblemsError) Error() string {
	n := 0
	for _, d := range e.Diagnostics {
		if d.Severity == project.SeverityError {
			n++
		}
	}
	return fmt.Sprintf("the project has %d error(s)", n)
}
