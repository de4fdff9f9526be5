package lsp

import "github.com/efmesh/efmesh/engine"

// inferredColumns returns what a model's query yields according to the
// last check (the binder's schema, whatever was declared), falling back to
// the columns children bind against.
func inferredColumns(res *checkResult, name string) []engine.Column {
	info := res.info(name)
	if info == nil {
		return nil
	}
	if info.Inferred != nil {
		return info.Inferred
	}
	return info.Columns
}
