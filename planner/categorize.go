package planner

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/efmesh/efmesh/analysis"
	"github.com/efmesh/efmesh/engine"
)

// verdict is the category of a directly changed model with the evidence.
type verdict struct {
	change Change
	paths  []string // the parts of the query (or metadata) that diverged
	reason string
	// dropsColumns: existing columns were removed or reordered, which no
	// operator verdict can make non-breaking.
	dropsColumns bool
	// children are the direct children that would read the model
	// differently ("child: why"), which made an append breaking.
	children []string
}

// categorize compares a model's previous snapshot with its new version.
// Non-breaking is claimed only when it is proven: the select list strictly
// extended at its end, every other part of the query equal, and the
// data-shaping metadata equal but for columns appended to the contract.
// Anything else — including what cannot be read — is breaking. The
// canonical forms are read through the engine's outline (outline).
func categorize(oldDef, newDef analysis.Definition, oldCanon, newCanon []byte, outline engine.Outliner) verdict {
	var meta []string
	if oldDef.Kind.Name != newDef.Kind.Name || !reflect.DeepEqual(normKind(oldDef), normKind(newDef)) {
		meta = append(meta, "kind")
	}
	if strings.Join(oldDef.Grain, ",") != strings.Join(newDef.Grain, ",") {
		meta = append(meta, "grain")
	}
	colsAppended := false
	if !sameDeclared(oldDef, newDef) {
		if isPrefix(oldDef, newDef) {
			colsAppended = true
		} else {
			meta = append(meta, "columns")
		}
	}
	if len(meta) > 0 {
		return verdict{change: Breaking, paths: meta, reason: "data-shaping properties changed: " + strings.Join(meta, ", "),
			dropsColumns: droppedDeclared(oldDef, newDef)}
	}
	if oldCanon == nil || newCanon == nil {
		if string(oldCanon) == string(newCanon) && !colsAppended {
			return verdict{change: Breaking, paths: []string{"content"}, reason: "the model's data source changed"}
		}
		return verdict{change: Breaking, paths: []string{"definition"}, reason: "the model's definition changed"}
	}
	if outline == nil {
		return verdict{change: Breaking, paths: []string{"(unreadable tree)"}, reason: "the parse trees could not be compared"}
	}
	oo, oerr := outline.Outline(oldCanon)
	no, nerr := outline.Outline(newCanon)
	if oerr != nil || nerr != nil || oo.Query == nil || no.Query == nil {
		return verdict{change: Breaking, paths: []string{"(unreadable tree)"}, reason: "the parse trees could not be compared"}
	}
	oq, nq := oo.Query, no.Query
	var paths []string
	if oq.Kind != nq.Kind {
		paths = append(paths, "query")
	} else {
		paths = diffRest(oq.Rest, nq.Rest)
	}
	if oq.Kind != engine.Select || nq.Kind != engine.Select {
		if len(paths) == 0 && colsAppended {
			return verdict{change: Breaking, paths: []string{"columns"}, reason: "columns were declared without a query change"}
		}
		return verdict{change: Breaking, paths: paths, reason: "the query changed (only a plain SELECT's select list can be extended non-breakingly)"}
	}
	ol, nl := itemHashes(oq.Items), itemHashes(nq.Items)
	common := min(len(ol), len(nl))
	var listPaths []string
	for i := 0; i < common; i++ {
		if ol[i] != nl[i] {
			listPaths = append(listPaths, fmt.Sprintf("select_list[%d]", i))
		}
	}
	for i := common; i < len(ol); i++ {
		listPaths = append(listPaths, fmt.Sprintf("select_list[%d] (removed)", i))
	}
	for i := common; i < len(nl); i++ {
		listPaths = append(listPaths, fmt.Sprintf("select_list[%d] (added)", i))
	}
	all := append(paths, listPaths...)
	if len(paths) == 0 && len(listPaths) > 0 && onlyExcludes(oq.Items, nq.Items) && sameSchema(oldDef.Schema, newDef.Schema) {
		return verdict{change: NonBreaking, paths: all, reason: "only the EXCLUDE list of a * changed, and the query yields the same columns (names and types) as before: it drops nothing the query yields"}
	}
	switch {
	case len(paths) > 0:
		return verdict{change: Breaking, paths: all, reason: "the query changed outside the select list"}
	case len(ol) > len(nl) || len(listPaths) > 0 && len(nl) == len(ol):
		return verdict{change: Breaking, paths: all, reason: "existing columns were changed, dropped or reordered",
			dropsColumns: len(ol) > len(nl) || reordered(ol, nl)}
	case len(nl) > len(ol) && common == len(ol) && len(listPaths) == len(nl)-len(ol):
		if why := changesRows(nq, len(nl)-len(ol)); why != "" {
			return verdict{change: Breaking, paths: all, reason: "columns were appended, but " + why}
		}
		return verdict{change: NonBreaking, paths: all, reason: "columns were only appended to the select list; existing columns keep their data"}
	case len(all) == 0:
		if colsAppended {
			return verdict{change: Breaking, paths: []string{"columns"}, reason: "columns were declared without a query change"}
		}
		return verdict{change: Breaking, paths: []string{"definition"}, reason: "the model's definition changed"}
	}
	return verdict{change: Breaking, paths: all, reason: "existing columns were changed, dropped or reordered"}
}

// onlyExcludes reports two select lists of one length whose items are
// equal but for stars that differ at most in their EXCLUDE lists.
//
// The rule (an edit whose output is provably identical is not breaking):
// a star's EXCLUDE list only removes columns from what the star yields.
// When the rest of the query is equal (the same FROM, so the star reads
// the same relations) and the query's output schema — names, order and
// types, as the checker inferred it for both versions — is identical,
// the changed EXCLUDE entries name nothing the star yields, so every row
// and every column is what it was. When either schema is unknown, or a
// changed entry drops a column that was yielded (the schema differs),
// the edit stays breaking.
func onlyExcludes(a, b []engine.Item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Hash == b[i].Hash {
			continue
		}
		if !a[i].Star || !b[i].Star || a[i].StarShape == "" || a[i].StarShape != b[i].StarShape {
			return false
		}
	}
	return true
}

// sameSchema reports two known output schemas with the same columns in
// the same order, names compared exactly and types by their normal form.
func sameSchema(a, b []engine.Column) bool {
	if len(a) == 0 || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || engine.NormalTypeName(a[i].Type) != engine.NormalTypeName(b[i].Type) {
			return false
		}
	}
	return true
}

// diffRest names the parts outside the select list that differ, sorted.
func diffRest(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func itemHashes(items []engine.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Hash
	}
	return out
}

func normKind(d analysis.Definition) string {
	b, _ := json.Marshal(d.Kind)
	return strings.ToLower(string(b))
}

func sameDeclared(a, b analysis.Definition) bool {
	if (a.Columns == nil) != (b.Columns == nil) || len(a.Columns) != len(b.Columns) {
		return false
	}
	for i := range a.Columns {
		if !strings.EqualFold(a.Columns[i].Name, b.Columns[i].Name) || engine.NormalTypeName(a.Columns[i].Type) != engine.NormalTypeName(b.Columns[i].Type) {
			return false
		}
	}
	return true
}

// isPrefix reports whether b's declared columns extend a's at the end.
func isPrefix(a, b analysis.Definition) bool {
	if a.Columns == nil || b.Columns == nil || len(b.Columns) <= len(a.Columns) {
		return false
	}
	for i := range a.Columns {
		if !strings.EqualFold(a.Columns[i].Name, b.Columns[i].Name) || engine.NormalTypeName(a.Columns[i].Type) != engine.NormalTypeName(b.Columns[i].Type) {
			return false
		}
	}
	return true
}

// setReturning functions yield several rows per input row.
var setReturning = map[string]bool{"unnest": true, "generate_series": true, "range": true, "generate_subscripts": true,
	"json_each": true, "json_tree": true, "regexp_split_to_table": true}

// aggregates are the common aggregate functions; a user's own aggregate is
// not known here, which errs on the side of non-breaking only when the
// query is already grouped.
var aggregates = map[string]bool{"count": true, "count_star": true, "sum": true, "avg": true, "mean": true, "min": true, "max": true,
	"any_value": true, "first": true, "last": true, "list": true, "array_agg": true, "string_agg": true, "group_concat": true,
	"listagg": true, "median": true, "mode": true, "quantile": true, "quantile_cont": true, "quantile_disc": true,
	"stddev": true, "stddev_pop": true, "stddev_samp": true, "variance": true, "var_pop": true, "var_samp": true,
	"bool_and": true, "bool_or": true, "bit_and": true, "bit_or": true, "arg_min": true, "arg_max": true, "argmin": true,
	"argmax": true, "min_by": true, "max_by": true, "approx_count_distinct": true, "approx_quantile": true, "histogram": true,
	"product": true, "fsum": true, "sumkahan": true, "kahan_sum": true, "corr": true, "covar_pop": true, "covar_samp": true,
	"entropy": true, "kurtosis": true, "skewness": true, "regr_slope": true, "regr_intercept": true, "favg": true}

// volatile functions give another value on every call: a column of
// theirs is no function of the other columns.
var volatile = map[string]bool{"random": true, "gen_random_uuid": true, "uuid": true, "uuidv4": true, "uuidv7": true,
	"nextval": true, "setseed": true}

// changesRows says why appending the last added items to q's select
// list could change the rows of the existing columns, or "" when it
// cannot.
//
// The rule: existing columns keep their rows when the select list takes
// no part in deciding the rows. It does where it is the row key — DISTINCT,
// GROUP BY ALL (every item without an aggregate is a key), ORDER BY ALL
// under LIMIT/OFFSET (the sort decides which rows are kept) — unless the
// new item is a function of the existing keys (it reads only columns
// that key items are, and calls nothing volatile, no window, no
// subquery: equal keys give it equal values). It does where it makes the
// row set: a set-returning function, or an aggregate turning a query
// without one into an aggregation. And a new item's name can capture a
// reference elsewhere in the query (ORDER BY, QUALIFY, HAVING, WHERE and
// GROUP BY may name select items).
func changesRows(q *engine.Query, added int) string {
	kept, fresh := q.Items[:len(q.Items)-added], q.Items[len(q.Items)-added:]
	grouped := q.Grouped
	for _, it := range kept {
		grouped = grouped || calls(it, aggregates)
	}
	for _, it := range fresh {
		if calls(it, setReturning) {
			return "a set-returning function in the new columns changes the number of rows"
		}
		if !grouped && calls(it, aggregates) {
			return "an aggregate in the new columns turns the query into an aggregation"
		}
		if why := rowKey(q, kept, it); why != "" {
			return why
		}
	}
	for _, it := range fresh {
		if it.Name == "" || it.Plain && len(it.Refs) == 1 && strings.EqualFold(it.Refs[0].Column, it.Name) {
			// A bare column under its own name reads what the name read.
			continue
		}
		for _, r := range q.Reads {
			if r.Qualifier == "" && strings.EqualFold(r.Column, it.Name) {
				return fmt.Sprintf("the query names %s outside the select list (ORDER BY, QUALIFY, HAVING, WHERE or GROUP BY), which may now read the new column", r.Column)
			}
		}
	}
	return ""
}

// rowKey says why a new item it of q's select list joins q's row key
// (the existing items being kept), or "" when it does not or when it is a
// function of the existing keys.
func rowKey(q *engine.Query, kept []engine.Item, it engine.Item) string {
	var why string
	switch {
	case q.Distinct:
		why = "the query is DISTINCT: a new column changes which rows are distinct"
	case q.GroupAll && !calls(it, aggregates):
		why = "GROUP BY ALL groups by every select item without an aggregate: a new column changes the groups"
		var keys []engine.Item
		for _, k := range kept {
			if !calls(k, aggregates) {
				keys = append(keys, k)
			}
		}
		kept = keys
	case q.OrderAll && q.Limited:
		why = "ORDER BY ALL sorts by every select item under LIMIT/OFFSET: a new column changes which rows are kept"
	default:
		return ""
	}
	if determined(it, kept) {
		return ""
	}
	return why
}

// determined reports whether an item's value is a function of the key
// items' values: it reads only columns that plain key items are, calls
// nothing volatile, no window and no subquery (a constant qualifies).
func determined(it engine.Item, keys []engine.Item) bool {
	if it.Star || it.Subquery || len(it.Windows) > 0 || calls(it, volatile) {
		return false
	}
	for _, r := range it.Refs {
		found := false
		for _, k := range keys {
			if k.Plain && len(k.Refs) == 1 && sameRef(k.Refs[0], r) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// sameRef reports two references to one column: equal names, and equal
// qualifiers where both say one.
func sameRef(a, b engine.ColumnRef) bool {
	if len(a.Path) > 2 || len(b.Path) > 2 {
		return strings.EqualFold(strings.Join(a.Path, "."), strings.Join(b.Path, "."))
	}
	return strings.EqualFold(a.Column, b.Column) && (a.Qualifier == "" || b.Qualifier == "" || strings.EqualFold(a.Qualifier, b.Qualifier))
}

// calls reports whether an item calls one of fns outside a window.
func calls(it engine.Item, fns map[string]bool) bool {
	for _, c := range it.Calls {
		if fns[c] {
			return true
		}
	}
	return false
}

// droppedDeclared reports a declared column of old missing from new.
func droppedDeclared(a, b analysis.Definition) bool {
	if a.Columns == nil || b.Columns == nil {
		return false
	}
	have := map[string]bool{}
	for _, c := range b.Columns {
		have[strings.ToLower(c.Name)] = true
	}
	for _, c := range a.Columns {
		if !have[strings.ToLower(c.Name)] {
			return true
		}
	}
	return false
}

// reordered reports two select lists holding the same items in another
// order.
func reordered(a, b []string) bool {
	if len(a) != len(b) || slices.Equal(a, b) {
		return false
	}
	used := make([]bool, len(b))
	for _, x := range a {
		found := false
		for j, y := range b {
			if !used[j] && x == y {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
