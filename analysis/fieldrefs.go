package analysis

import (
	"sort"
	"strings"

	"github.com/efmesh/efmesh/engine"
)

// ReferenceFieldSourcesIn is ReferenceSourcesIn for one struct field of
// the column the reference reads (c.st.b where the relation c yields st):
// what the field's value comes from, through the CTEs and subqueries that
// pass the struct on or build it. field "" is the whole column.
func ReferenceFieldSourcesIn(a *Analysis, model, cte, qualifier, column, field string) []ColumnRef {
	if a == nil {
		return nil
	}
	info := a.Models[model]
	if info == nil {
		return nil
	}
	o := a.outline(info.Canonical)
	if o == nil || o.Query == nil {
		return nil
	}
	lt := &lineageTracer{a: a}
	scope := cteScope{}
	q := o.Query
	for _, c := range o.Query.CTEs {
		if cte != "" && strings.EqualFold(c.Name, cte) {
			q = c.Query
			break
		}
		scope[strings.ToLower(c.Name)] = lt.cteOutputs(c, scope)
	}
	if q == nil || q.Kind != engine.Select || cte != "" && q == o.Query {
		return nil
	}
	var rels []relation
	for _, src := range q.From {
		rels = append(rels, lt.relation(src, scope, rels))
	}
	_, out := resolveName(engine.ColumnRef{Qualifier: qualifier, Column: column}, field, rels)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Model != out[j].Model {
			return out[i].Model < out[j].Model
		}
		if out[i].Column != out[j].Column {
			return out[i].Column < out[j].Column
		}
		return out[i].Field < out[j].Field
	})
	return out
}
