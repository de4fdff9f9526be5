package analysis

import (
	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// SCDColumns returns the names of an SCD_TYPE_2 model's validity columns.
func SCDColumns(k project.Kind) (from, to string) {
	from, to = k.ValidFrom, k.ValidTo
	if from == "" {
		from = "valid_from"
	}
	if to == "" {
		to = "valid_to"
	}
	return from, to
}

// WithValidity appends an SCD_TYPE_2 model's validity columns to the
// columns its children see (its table has them; its query does not).
func WithValidity(m *project.Model, cols []engine.Column) []engine.Column {
	if m.Kind.Name != project.KindSCDType2 || cols == nil {
		return cols
	}
	vf, vt := SCDColumns(m.Kind)
	out := append([]engine.Column{}, cols...)
	return append(out, engine.Column{Name: vf, Type: "TIMESTAMP"}, engine.Column{Name: vt, Type: "TIMESTAMP"})
}
