package planner

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
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
	return modelAudits(p.Audit, m)
}

// modelAudits is ModelAudits with custom audits looked up by custom: the
// project's files, or those a snapshot recorded (efmesh audit).
func modelAudits(custom func(name string) *project.CustomAudit, m *project.Model) []Audit {
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
		case custom(c.Name) != nil:
			au.custom = custom(c.Name)
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
	Detail   string          `json:"detail,omitempty"`
	Interval *analysis.Range `json:"interval,omitempty"` // the written interval audited, if any
	Error    string          `json:"error,omitempty"`
	Reason   string          `json:"reason,omitempty"` // why it was skipped
}

// Blocks reports whether the result stops what the audit guards.
func (r AuditResult) Blocks() bool {
	return r.Blocking && (r.Status == AuditFailed || r.Status == AuditError)
}

func (r AuditResult) String() string {
	where := ""
	if r.Interval != nil {
		where = " in " + r.Interval.String()
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
	wh   engine.Querier // the warehouse, or the transaction that wrote the data
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
func (ad *auditor) run(ctx context.Context, m *project.Model, audits []Audit, this string, interval *analysis.Range) ([]AuditResult, error) {
	var results []AuditResult
	var failed []AuditResult
	for _, au := range audits {
		r := AuditResult{Model: m.Name, Audit: au.Text, Blocking: au.Blocking, Scope: au.Scope}
		if interval != nil {
			iv := *interval
			r.Interval = &iv
		}
		n, detail, err := ad.eval(ctx, m, au, this)
		switch {
		case err != nil:
			r.Status, r.Error = AuditError, analysis.FirstLine(analysis.ErrMessage(err))
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

// renderCustom renders a custom audit's query as the check bound it
// (analysis.RenderAudit), this being the audited relation.
func (ad *auditor) renderCustom(c *project.CustomAudit, this string) (string, error) {
	r, err := analysis.RenderAudit(c, analysis.AuditText{This: this, Ref: ad.ref, Vars: ad.proj.Config.Variables, Literal: ad.d.Literal})
	return r.SQL, err
}

// evalCoverage finds holes inside the observed range of a column: a
// sequence of integers (assert_contiguous) or of day/hour buckets
// (assert_no_gaps). It says where coverage stops and resumes at the first
// hole, and how many more there are.
func (ad *auditor) evalCoverage(ctx context.Context, m *project.Model, au Audit, this string) (int64, string, error) {
	d := ad.d
	col := d.Quote(au.Args[0])
	var value, step string
	grain := analysis.Day
	if au.Name == "assert_contiguous" {
		value, step = col, "1"
	} else {
		if len(au.Args) > 1 {
			grain = analysis.Grain(au.Args[1])
		} else if incremental(m) {
			grain = analysis.GrainOf(m)
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
			if grain == analysis.Hour {
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
