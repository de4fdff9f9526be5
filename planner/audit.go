package planner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
	"github.com/efmesh/efmesh/state"
)

// Audits are queries over a model's data that return the violating rows;
// a non-empty result is a violation. A blocking audit stops what it guards,
// a warning (warn(...), or a custom audit with blocking false) is logged.
//
// Every audit has a scope, because an aggregate audit can mean different
// things over one written interval and over the whole table (a
// de-duplication window makes ids unique within each interval, not across
// the table):
//
//   - per_interval(a): checked on each interval apply and run write, before
//     the interval is marked done (a violation marks it failed instead);
//     efmesh audit reports it as skipped.
//   - whole(a): checked on the complete physical relation before promotion,
//     and by efmesh audit; never against a slice.
//   - unscoped: checked where data is written — each interval of an
//     INCREMENTAL_BY_TIME_RANGE model, the whole relation of any other kind
//     before promotion — and by efmesh audit on the environment's view.
//
// The coverage audits assert_contiguous and assert_no_gaps are whole by
// default: a hole is a property of the table, and one batch cannot show
// the holes between batches.

// AuditScope is where an audit runs.
type AuditScope string

const (
	ScopeDefault  AuditScope = ""
	ScopeInterval AuditScope = "per_interval"
	ScopeWhole    AuditScope = "whole"
)

// Audit is one entry of a model's audits, with its wrappers resolved.
type Audit struct {
	Text     string // as written, e.g. warn(unique(event_id))
	Name     string // the audit run: a built-in or a custom audit's name
	Args     []string
	Blocking bool
	Scope    AuditScope

	custom *project.CustomAudit
}

// ModelAudits resolves the audits of m. Calls that name no audit are
// skipped: the loader reported them.
func ModelAudits(p *project.Project, m *project.Model) []Audit {
	var out []Audit
	for _, call := range m.Audits {
		au := Audit{Text: call.Text, Blocking: true}
		c := &call
		for c != nil {
			switch c.Name {
			case "warn":
				au.Blocking = false
				c = c.Inner
				continue
			case "per_interval":
				au.Scope = ScopeInterval
				c = c.Inner
				continue
			case "whole":
				au.Scope = ScopeWhole
				c = c.Inner
				continue
			}
			break
		}
		if c == nil {
			continue
		}
		au.Name, au.Args = c.Name, c.Args
		switch {
		case project.IsBuiltinAudit(c.Name):
			if au.Scope == ScopeDefault && (c.Name == "assert_contiguous" || c.Name == "assert_no_gaps") {
				au.Scope = ScopeWhole
			}
		case p.Audit(c.Name) != nil:
			au.custom = p.Audit(c.Name)
			au.Blocking = au.Blocking && au.custom.Blocking
		default:
			continue
		}
		out = append(out, au)
	}
	return out
}

func incremental(m *project.Model) bool { return m.Kind.Name == project.KindIncrementalByTimeRange }

// onInterval reports whether apply and run check the audit on each interval
// they write of m.
func (au Audit) onInterval(m *project.Model) bool {
	return incremental(m) && au.Scope != ScopeWhole
}

// beforePromotion reports whether apply checks the audit on m's whole
// physical relation before promoting it.
func (au Audit) beforePromotion(m *project.Model) bool {
	return au.Scope == ScopeWhole || !incremental(m)
}

// Audit outcomes.
const (
	AuditPassed  = "passed"
	AuditFailed  = "failed"  // a blocking audit found violations
	AuditWarned  = "warned"  // a warning found violations
	AuditError   = "error"   // the audit could not run
	AuditSkipped = "skipped" // not asked of this scope
)

// AuditResult is the outcome of one audit over one relation.
type AuditResult struct {
	Model      string     `json:"model"`
	Audit      string     `json:"audit"` // as written
	Blocking   bool       `json:"blocking"`
	Scope      AuditScope `json:"scope,omitempty"`
	Status     string     `json:"status"`
	Violations int64      `json:"violations"`
	// Detail says what was found: the first violating rows, or for the
	// coverage audits where the hole is.
	Detail   string   `json:"detail,omitempty"`
	Interval []string `json:"interval,omitempty"` // the written interval audited, if any
	Error    string   `json:"error,omitempty"`
	Reason   string   `json:"reason,omitempty"` // why it was skipped
}

// Blocks reports whether the result stops what the audit guards.
func (r AuditResult) Blocks() bool {
	return r.Blocking && (r.Status == AuditFailed || r.Status == AuditError)
}

func (r AuditResult) String() string {
	where := ""
	if len(r.Interval) == 2 {
		where = " in [" + r.Interval[0] + ", " + r.Interval[1] + ")"
	}
	switch r.Status {
	case AuditError:
		return fmt.Sprintf("audit %s of %s could not run%s: %s", r.Audit, r.Model, where, r.Error)
	case AuditSkipped:
		return fmt.Sprintf("audit %s of %s skipped: %s", r.Audit, r.Model, r.Reason)
	case AuditPassed:
		return fmt.Sprintf("audit %s of %s passed%s", r.Audit, r.Model, where)
	}
	s := fmt.Sprintf("audit %s of %s: %d violation(s)%s", r.Audit, r.Model, r.Violations, where)
	if r.Detail != "" {
		s += ": " + r.Detail
	}
	return s
}

// AuditFailure is returned when blocking audits found violations (or could
// not run): what they guard — an interval, a promotion — did not happen.
type AuditFailure struct {
	Results []AuditResult // the blocking ones
}

func (e *AuditFailure) Error() string {
	msgs := make([]string, len(e.Results))
	for i, r := range e.Results {
		msgs[i] = r.String()
	}
	return "blocking " + strings.Join(msgs, "; ")
}

// auditor runs audits in one engine.
type auditor struct {
	proj *project.Project
	wh   engine.Engine
	d    engine.Dialect
	log  *slog.Logger
	// ref renders @ref(name) of a custom audit: the relation the audited
	// data's world holds for that model (physical in apply, the
	// environment's view in efmesh audit).
	ref func(name string) (string, error)
}

// run evaluates audits over this (a quoted relation or a parenthesized
// query) and logs the warnings. The error is an *AuditFailure when a
// blocking audit failed.
func (ad *auditor) run(ctx context.Context, m *project.Model, audits []Audit, this string, interval *Range) ([]AuditResult, error) {
	var results []AuditResult
	var failed []AuditResult
	for _, au := range audits {
		r := AuditResult{Model: m.Name, Audit: au.Text, Blocking: au.Blocking, Scope: au.Scope}
		if interval != nil {
			r.Interval = interval.pair()
		}
		n, detail, err := ad.eval(ctx, m, au, this)
		switch {
		case err != nil:
			r.Status, r.Error = AuditError, firstLine(errMessage(err))
		case n == 0:
			r.Status = AuditPassed
		case au.Blocking:
			r.Status, r.Violations, r.Detail = AuditFailed, n, detail
		default:
			r.Status, r.Violations, r.Detail = AuditWarned, n, detail
		}
		if r.Status == AuditWarned || r.Status == AuditError && !au.Blocking {
			ad.log.Warn("audit warning: "+r.String(), "model", m.Name, "audit", au.Text, "violations", n)
		}
		if r.Blocks() {
			failed = append(failed, r)
		}
		observeAudit(ctx, r)
		results = append(results, r)
	}
	if len(failed) > 0 {
		return results, &AuditFailure{Results: failed}
	}
	return results, nil
}

// eval runs one audit and returns its violation count and a description of
// the first violations.
func (ad *auditor) eval(ctx context.Context, m *project.Model, au Audit, this string) (int64, string, error) {
	if au.Name == "assert_contiguous" || au.Name == "assert_no_gaps" {
		return ad.evalCoverage(ctx, m, au, this)
	}
	q, err := ad.query(au, this)
	if err != nil {
		return 0, "", err
	}
	const sample = 3
	rows, err := ad.wh.Query(ctx, "SELECT count(*) OVER () AS _efmesh_n, _efmesh_v.* FROM (\n"+q+"\n) AS _efmesh_v LIMIT "+fmt.Sprint(sample))
	if err != nil {
		return 0, "", err
	}
	if len(rows.Values) == 0 {
		return 0, "", nil
	}
	n := toInt64(rows.Values[0][0])
	var ex []string
	for _, row := range rows.Values {
		var cells []string
		for i := 1; i < len(row) && i < len(rows.Columns); i++ {
			cells = append(cells, rows.Columns[i].Name+"="+formatValue(row[i]))
		}
		ex = append(ex, "("+strings.Join(cells, ", ")+")")
	}
	detail := "e.g. " + strings.Join(ex, ", ")
	if n > int64(len(ex)) {
		detail += ", …"
	}
	return n, detail, nil
}

// query renders the violations query of a built-in or custom audit.
func (ad *auditor) query(au Audit, this string) (string, error) {
	d := ad.d
	cols := make([]string, len(au.Args))
	for i, a := range au.Args {
		cols[i] = d.Quote(a)
	}
	from := " FROM " + this + " AS _efmesh_this"
	switch au.Name {
	case "not_null":
		conds := make([]string, len(cols))
		for i, c := range cols {
			conds[i] = c + " IS NULL"
		}
		return "SELECT *" + from + " WHERE " + strings.Join(conds, " OR "), nil
	case "unique":
		list := strings.Join(cols, ", ")
		return "SELECT " + list + ", count(*) AS copies" + from + " GROUP BY " + list + " HAVING count(*) > 1", nil
	case "accepted":
		vals := make([]string, len(au.Args)-1)
		for i, v := range au.Args[1:] {
			vals[i] = d.Literal(v)
		}
		return "SELECT *" + from + " WHERE " + cols[0] + " IS NOT NULL AND " + cols[0] + " NOT IN (" + strings.Join(vals, ", ") + ")", nil
	}
	if au.custom == nil {
		return "", fmt.Errorf("unknown audit %s", au.Name)
	}
	return ad.renderCustom(au.custom, this)
}

// renderCustom renders a custom audit's query: @this is the audited
// relation, @ref(x) the relation of model x.
func (ad *auditor) renderCustom(c *project.CustomAudit, this string) (string, error) {
	end := bodyEnd(c.Source, c.BodyStart)
	var subs []engine.Substitution
	for _, mc := range c.Macros {
		if mc.Start < c.BodyStart || mc.End > end {
			continue
		}
		var text string
		switch mc.Kind {
		case project.MacroThis:
			text = this + " AS _efmesh_this"
			// A bare @this keeps its alias only where the SQL gives none:
			// "FROM @this AS s" must stay valid.
			if mc.Aliased {
				text = this
			}
		case project.MacroRef:
			if ad.ref == nil {
				return "", fmt.Errorf("audit %s: @ref is not available here", c.Name)
			}
			r, err := ad.ref(mc.Arg)
			if err != nil {
				return "", fmt.Errorf("audit %s: %w", c.Name, err)
			}
			text = r + implicitAlias(mc, macroText{})
		default:
			return "", fmt.Errorf("audit %s: @%s is not available in an audit", c.Name, mc.Kind)
		}
		subs = append(subs, engine.Substitution{Start: mc.Start, End: mc.End, Text: text})
	}
	return engine.Render(c.Source, c.BodyStart, end, subs).SQL, nil
}

// evalCoverage finds holes inside the observed range of a column: a
// sequence of integers (assert_contiguous) or of day/hour buckets
// (assert_no_gaps). It says where coverage stops and resumes at the first
// hole, and how many more there are.
func (ad *auditor) evalCoverage(ctx context.Context, m *project.Model, au Audit, this string) (int64, string, error) {
	d := ad.d
	col := d.Quote(au.Args[0])
	var value, step string
	grain := Day
	if au.Name == "assert_contiguous" {
		value, step = col, "1"
	} else {
		if len(au.Args) > 1 {
			grain = Grain(au.Args[1])
		} else if incremental(m) {
			grain = grainOf(m)
		}
		value = "CAST(date_trunc(" + d.Literal(string(grain)) + ", " + col + ") AS TIMESTAMP)"
		step = "INTERVAL " + d.Literal("1 "+string(grain))
	}
	q := "SELECT prev_v, cur_v, count(*) OVER () AS n FROM (\n" +
		"  SELECT v AS cur_v, lag(v) OVER (ORDER BY v) AS prev_v FROM (SELECT DISTINCT " + value + " AS v FROM " + this +
		" AS _efmesh_this WHERE " + col + " IS NOT NULL) AS _efmesh_values\n" +
		") AS _efmesh_steps WHERE cur_v > prev_v + " + step + " ORDER BY cur_v LIMIT 1"
	rows, err := ad.wh.Query(ctx, q)
	if err != nil {
		return 0, "", err
	}
	if len(rows.Values) == 0 {
		return 0, "", nil
	}
	row := rows.Values[0]
	n := toInt64(row[2])
	format := func(v any) string {
		if t, ok := v.(time.Time); ok {
			if grain == Hour {
				return t.UTC().Format("2006-01-02T15:04")
			}
			return t.UTC().Format("2006-01-02")
		}
		return formatValue(v)
	}
	detail := fmt.Sprintf("covered through %s, resumes at %s", format(row[0]), format(row[1]))
	if n > 1 {
		detail += fmt.Sprintf(" (and %d further gap(s))", n-1)
	}
	return n, detail, nil
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case uint64:
		return int64(x)
	case float64:
		return int64(x)
	}
	var n int64
	fmt.Sscan(fmt.Sprint(v), &n)
	return n
}

func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case time.Time:
		if x.Equal(x.Truncate(24*time.Hour)) && x.Hour() == 0 {
			return x.UTC().Format("2006-01-02")
		}
		return x.UTC().Format(time.RFC3339)
	case []byte:
		return fmt.Sprintf("%x", x)
	case string:
		if len(x) > 40 {
			return x[:40] + "…"
		}
		return x
	}
	return fmt.Sprint(v)
}

// --- where apply and run call audits ----------------------------------------

// auditInterval checks the audits of m scoped to written intervals on one
// interval (or batch) just written; this selects exactly its rows. The
// error is an *AuditFailure when a blocking audit failed: the caller marks
// the interval failed instead of done.
func (b *builder) auditInterval(ctx context.Context, info *ModelInfo, this string, r Range, log *slog.Logger) error {
	m := info.Model
	var audits []Audit
	for _, au := range ModelAudits(b.a.Project, m) {
		if au.onInterval(m) {
			audits = append(audits, au)
		}
	}
	if len(audits) == 0 {
		return nil
	}
	ad := b.auditor(log)
	_, err := ad.run(ctx, m, audits, this, &r)
	return err
}

// auditFile is auditInterval over one written parquet partition.
func (b *builder) auditFile(ctx context.Context, info *ModelInfo, path string, r Range, log *slog.Logger) error {
	q, err := b.wh.(engine.FileReader).ReadFiles(engine.FileSpec{Paths: []string{path}, Format: "parquet"})
	if err != nil {
		return err
	}
	return b.auditInterval(ctx, info, "(\n"+q+"\n)", r, log)
}

func (b *builder) auditor(log *slog.Logger) *auditor {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &auditor{proj: b.a.Project, wh: b.wh, d: b.d, log: log, ref: func(name string) (string, error) {
		pi := b.a.Models[name]
		if pi == nil {
			return "", fmt.Errorf("unknown model %s", name)
		}
		if pi.Model.Kind.Name.Virtual() {
			return b.inline(pi, map[string]bool{})
		}
		return b.d.QuoteRelation(PhysicalRelation(b.d, pi.Model, b.physFP(pi))), nil
	}}
}

// auditBuilt checks the audits of a model that apply checks on its whole
// physical relation (every kind but INCREMENTAL_BY_TIME_RANGE, and whole
// audits of those) right after it was built or computed, before it counts
// as built. The error is an *AuditFailure when a blocking audit failed.
func (b *builder) auditBuilt(ctx context.Context, info *ModelInfo, log *slog.Logger) error {
	m := info.Model
	var audits []Audit
	for _, au := range ModelAudits(b.a.Project, m) {
		if au.beforePromotion(m) {
			audits = append(audits, au)
		}
	}
	if len(audits) == 0 {
		return nil
	}
	_, err := b.auditor(log).run(ctx, m, audits, b.d.QuoteRelation(PhysicalRelation(b.d, m, b.physFP(info))), nil)
	return err
}

// auditMetadataOnly runs the audits a metadata-only change adds or changes
// on the data the model's snapshot already holds, nothing having been
// rebuilt: an audit checked on the whole relation runs on it, one checked
// on written intervals (INCREMENTAL_BY_TIME_RANGE) runs on each batch of
// the done intervals of the ledger. A blocking violation is an
// *AuditFailure naming the model, the audit and the count: the apply
// stops before promotion.
func auditMetadataOnly(ctx context.Context, p *Plan, b *builder, st state.Reader, log *slog.Logger) error {
	var failed []AuditResult
	collect := func(err error) error {
		var af *AuditFailure
		if errors.As(err, &af) {
			failed = append(failed, af.Results...)
			return nil
		}
		return err
	}
	for _, mp := range p.Models {
		texts := p.newAudits[mp.Name]
		info := p.analysis.Models[mp.Name]
		if mp.Change != MetadataOnly || len(texts) == 0 || info == nil || info.Model.Kind.Name == project.KindEmbedded {
			continue // embedded models are audited before promotion
		}
		m := info.Model
		var whole, intervals []Audit
		for _, au := range ModelAudits(p.analysis.Project, m) {
			switch {
			case !slices.Contains(texts, au.Text):
			case au.onInterval(m):
				intervals = append(intervals, au)
			default:
				whole = append(whole, au)
			}
		}
		this := b.d.QuoteRelation(PhysicalRelation(b.d, m, b.physFP(info)))
		if m.Kind.Name == project.KindExternal {
			q, err := b.Query(info)
			if err != nil {
				return &BuildError{Model: mp.Name, File: m.File, Err: err}
			}
			this = "(\n" + q + "\n)"
		}
		if len(whole) > 0 {
			if _, err := b.auditor(log).run(ctx, m, whole, this, nil); collect(err) != nil {
				return err
			}
		}
		if len(intervals) == 0 {
			continue
		}
		done, err := st.Intervals(ctx, mp.Fingerprint)
		if err != nil {
			return err
		}
		g := grainOf(m)
		for _, r := range doneRanges(done) {
			for _, batch := range g.Batches(r, m.Kind.BatchSize) {
				start, end := b.d.TimestampLiteral(batch.Start.UTC().Format(time.RFC3339)), b.d.TimestampLiteral(batch.End.UTC().Format(time.RFC3339))
				slice := "(SELECT * FROM " + this + " WHERE " + engine.RangeCondition(m.Kind.TimeColumn, start, end) + ")"
				if _, err := b.auditor(log).run(ctx, m, intervals, slice, &batch); collect(err) != nil {
					return err
				}
			}
		}
	}
	if len(failed) > 0 {
		return &AuditFailure{Results: failed}
	}
	return nil
}

// doneRanges merges the done intervals of a ledger into maximal ranges.
func doneRanges(ivs []state.Interval) []Range {
	var out []Range
	for _, iv := range ivs {
		if iv.Status != state.IntervalDone {
			continue
		}
		if n := len(out); n > 0 && !iv.Start.After(out[n-1].End) {
			if iv.End.After(out[n-1].End) {
				out[n-1].End = iv.End
			}
			continue
		}
		out = append(out, Range{Start: iv.Start, End: iv.End})
	}
	return out
}

// beforePromotion is what stands between a successful build and the view
// swap of an apply. Built models were audited as they were built; virtual
// models (EMBEDDED, EXTERNAL), which are never built, are audited here as
// the subquery their consumers inline, when their version changes. Then every snapshot the
// environment will point at is reserved against the janitor.
func beforePromotion(ctx context.Context, p *Plan, b *builder, st state.Store, res *ApplyResult, log *slog.Logger) error {
	var failed []AuditResult
	for _, mp := range p.Models {
		info := p.analysis.Models[mp.Name]
		if mp.Change == Removed || mp.Change == Unchanged || info == nil || !info.Model.Kind.Name.Virtual() {
			continue
		}
		audits := ModelAudits(p.analysis.Project, info.Model)
		if len(audits) == 0 {
			continue
		}
		q, err := b.Query(info)
		if err != nil {
			return &BuildError{Model: mp.Name, File: info.Model.File, Err: err}
		}
		_, err = b.auditor(log).run(ctx, info.Model, audits, "(\n"+q+"\n)", nil)
		var af *AuditFailure
		switch {
		case errors.As(err, &af):
			failed = append(failed, af.Results...)
		case err != nil:
			return err
		}
	}
	if len(failed) > 0 {
		return &AuditFailure{Results: failed}
	}
	// The janitor's claim and this reservation exclude each other (see
	// janitor.go): past this point no snapshot of the plan can be removed.
	var fps []string
	for _, mp := range p.Models {
		if mp.Change != Removed {
			fps = append(fps, mp.Fingerprint)
		}
	}
	if err := st.Reserve(ctx, fps, b.now.Add(ReserveLease)); err != nil {
		if errors.Is(err, state.ErrNotFound) {
			return fmt.Errorf("the janitor removed a snapshot of this plan while it was applied; plan again: %w", err)
		}
		return err
	}
	return nil
}

// checkAudits positions audit arguments that name no column of their
// model, and coverage audits over a column of the wrong type; it needs
// schemas, so it runs after the models are analyzed.
func checkAudits(a *Analysis) []project.Diagnostic {
	var out []project.Diagnostic
	for _, m := range a.Project.Models {
		info := a.Models[m.Name]
		if info == nil || info.Model != m || info.Columns == nil {
			continue
		}
		types := map[string]string{}
		for _, c := range info.Columns {
			types[strings.ToLower(c.Name)] = c.Type
		}
		for i := range m.Audits {
			call := &m.Audits[i]
			for call.Inner != nil {
				call = call.Inner
			}
			if !project.IsBuiltinAudit(call.Name) {
				continue
			}
			cols := call.Args
			if call.Name != "not_null" && call.Name != "unique" && len(cols) > 0 {
				cols = cols[:1]
			}
			for _, col := range cols {
				typ, ok := types[strings.ToLower(col)]
				msg := ""
				switch fam := engine.TypeFamily(typ); {
				case !ok:
					msg = fmt.Sprintf("audit %s: %s has no column %q (it has %s)", call.Name, m.Name, col, columnList(info.Columns))
				case call.Name == "assert_contiguous" && fam != "integer":
					msg = fmt.Sprintf("assert_contiguous needs an integer column; %s is %s", col, typ)
				case call.Name == "assert_no_gaps" && fam != "date" && fam != "timestamp":
					msg = fmt.Sprintf("assert_no_gaps needs a date or timestamp column; %s is %s", col, typ)
				}
				if msg != "" {
					out = append(out, project.Diagnostic{File: m.File, Range: call.Range, Severity: project.SeverityError, Code: project.CodeAudit, Message: msg})
				}
			}
		}
	}
	return out
}

// EnvAudit is the report of AuditEnvironment.
type EnvAudit struct {
	Env     string        `json:"env"`
	Results []AuditResult `json:"results"`
}

// Blocked reports whether a blocking audit failed or could not run.
func (r *EnvAudit) Blocked() bool {
	for _, x := range r.Results {
		if x.Blocks() {
			return true
		}
	}
	return false
}

// AuditEnvironment checks what env serves right now: every audit of the
// project's models (those named, or all) over the environment's views, the
// whole view each time, so it catches what happened after apply — late
// data, edits behind efmesh's back. per_interval audits are reported as
// skipped: they are a promise about each written interval, not about the
// table. It changes nothing and marks nothing.
func AuditEnvironment(ctx context.Context, proj *project.Project, wh engine.Engine, pointers map[string]string, env string, models []string, log *slog.Logger) (*EnvAudit, error) {
	if err := ValidateEnv(env); err != nil {
		return nil, err
	}
	if len(pointers) == 0 {
		return nil, fmt.Errorf("environment %s has no models: it was never applied", env)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for _, name := range models {
		if proj.ByName[name] == nil {
			return nil, fmt.Errorf("unknown model %q%s", name, didYouMeanName(name, proj))
		}
		if _, ok := pointers[name]; !ok {
			return nil, fmt.Errorf("model %s is not in environment %s", name, env)
		}
	}
	d := wh.Dialect()
	// An EXTERNAL model has no view: it is read in place, as its
	// consumers read it.
	b := &builder{a: &Analysis{Project: proj}, d: d, wh: wh, root: proj.Root}
	relation := func(m *project.Model) (string, error) {
		switch m.Kind.Name {
		case project.KindEmbedded:
			return "", fmt.Errorf("model %s is embedded: it has no view to read", m.Name)
		case project.KindExternal:
			return b.inline(&ModelInfo{Model: m}, nil)
		}
		return d.QuoteRelation(EnvRelation(d, env, m)), nil
	}
	ad := &auditor{proj: proj, wh: wh, d: d, log: log, ref: func(name string) (string, error) {
		m := proj.ByName[name]
		if m == nil || pointers[name] == "" {
			return "", fmt.Errorf("model %s is not in environment %s", name, env)
		}
		return relation(m)
	}}
	rep := &EnvAudit{Env: env, Results: []AuditResult{}}
	for _, m := range proj.Models {
		if _, ok := pointers[m.Name]; !ok || len(models) > 0 && !slices.Contains(models, m.Name) {
			continue
		}
		var run []Audit
		for _, au := range ModelAudits(proj, m) {
			skip := AuditResult{Model: m.Name, Audit: au.Text, Blocking: au.Blocking, Scope: au.Scope, Status: AuditSkipped}
			switch {
			case au.Scope == ScopeInterval:
				skip.Reason = "per_interval audits check each interval apply and run write, not the whole view"
			case m.Kind.Name == project.KindEmbedded:
				skip.Reason = "an embedded model has no view"
			case redactedArg(proj, env, m, au) != "":
				skip.Reason = "column " + redactedArg(proj, env, m, au) + " is redacted in " + env
			default:
				run = append(run, au)
				continue
			}
			rep.Results = append(rep.Results, skip)
		}
		if len(run) == 0 {
			continue
		}
		this, err := relation(m)
		if err != nil {
			return nil, err
		}
		res, err := ad.run(ctx, m, run, this, nil)
		var af *AuditFailure
		if err != nil && !errors.As(err, &af) {
			return nil, err
		}
		rep.Results = append(rep.Results, res...)
	}
	return rep, nil
}

func didYouMeanName(name string, p *project.Project) string {
	names := make([]string, 0, len(p.ByName))
	for n := range p.ByName {
		names = append(names, n)
	}
	return suggestModel(name, names)
}
