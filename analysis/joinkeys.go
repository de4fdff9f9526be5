package analysis

import (
	"strings"

	"github.com/efmesh/efmesh/engine"
)

// JoinKey is an equality a model's query compares two parents' columns
// by: A = B, A and B of different models.
type JoinKey struct {
	A ColumnRef `json:"a"`
	B ColumnRef `json:"b"`
}

// JoinKeys are the equalities by which a model's query matches the rows
// of its parents, one group a condition: a join's ON (its conjuncts
// A = B, each side reading one column), its USING columns, or a WHERE
// clause (a comma join). The query is read as lineage reads it: CTEs,
// FROM subqueries, subquery expressions (which see the relations around
// them) and set operations are followed, and each column is traced
// through them to the parent columns it is computed from. Equalities of
// two columns of one model (a self join) are left out.
func JoinKeys(a *Analysis, model string) [][]JoinKey {
	info := a.Models[model]
	if info == nil {
		return nil
	}
	o := a.outline(info.Canonical)
	if o == nil {
		return nil
	}
	jk := &joinKeys{lt: &lineageTracer{a: a}, seen: map[string]bool{}}
	jk.query(o.Query, nil, nil)
	return jk.out
}

type joinKeys struct {
	lt   *lineageTracer
	out  [][]JoinKey
	seen map[string]bool
}

func (jk *joinKeys) query(q *engine.Query, ctes cteScope, outer []relation) {
	if q == nil || jk.lt.depth > 64 {
		return
	}
	jk.lt.depth++
	defer func() { jk.lt.depth-- }()
	scope := cteScope{}
	for k, v := range ctes {
		scope[k] = v
	}
	for _, c := range q.CTEs {
		jk.query(c.Query, scope, nil)
		scope[strings.ToLower(c.Name)] = jk.lt.cteOutputs(c, scope)
	}
	for _, b := range q.Branches {
		jk.query(b, scope, outer)
	}
	var rels []relation
	for _, src := range q.From {
		if src.Query != nil {
			jk.query(src.Query, scope, nil)
		}
		r := jk.lt.relation(src, scope, rels)
		var group []JoinKey
		for _, u := range src.Using {
			ref := engine.ColumnRef{Column: u}
			group = append(group, pairs(resolveColumn(ref, rels), resolveColumn(ref, []relation{r}))...)
		}
		in := append(append([]relation{}, rels...), r)
		for _, e := range src.Equal {
			group = append(group, jk.equal(e, append(in, outer...))...)
		}
		jk.add(group)
		rels = in
	}
	var group []JoinKey
	for _, e := range q.WhereEqual {
		group = append(group, jk.equal(e, append(append([]relation{}, rels...), outer...))...)
	}
	jk.add(group)
	for _, sq := range q.Subqueries {
		jk.query(sq, scope, append(append([]relation{}, rels...), outer...))
	}
}

func (jk *joinKeys) equal(e engine.Equality, rels []relation) []JoinKey {
	return pairs(keyColumn(e.Left, rels), keyColumn(e.Right, rels))
}

// keyColumn is the parent columns behind the column one side of an
// equality reads when that column's values are theirs unchanged; none for
// a column computed from them (v1.rn = v1_lag.rn + 1 over rank() OVER
// (PARTITION BY i_brand ORDER BY d_year) matches no parent's rows).
func keyColumn(ref engine.ColumnRef, rels []relation) []ColumnRef {
	if !sameColumn(ref, rels) {
		return nil
	}
	return resolveColumn(ref, rels)
}

// pairs are the equalities between the parent columns behind two sides.
func pairs(left, right []ColumnRef) []JoinKey {
	var out []JoinKey
	for _, l := range left {
		for _, r := range right {
			if l.Field == "" && r.Field == "" && l.Model != r.Model {
				out = append(out, JoinKey{A: l, B: r})
			}
		}
	}
	return out
}

func (jk *joinKeys) add(group []JoinKey) {
	if len(group) == 0 {
		return
	}
	var key strings.Builder
	for _, k := range group {
		key.WriteString(k.A.Model + "." + k.A.Column + "=" + k.B.Model + "." + k.B.Column + ";")
	}
	if jk.seen[key.String()] {
		return
	}
	jk.seen[key.String()] = true
	jk.out = append(jk.out, group)
}
