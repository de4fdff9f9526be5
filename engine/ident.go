package engine

import "strings"

// IdentNormalizer is an optional Dialect capability: how the engine keeps
// an identifier it is given, where it creates it and where it reads it
// alike (PostgreSQL cuts one past 63 bytes). Names are compared as the
// engine keeps them, never as written.
type IdentNormalizer interface {
	NormalizeIdent(name string) string
}

// IdentKey is the key under which d holds two column names the same: the
// name as d keeps it, case-folded as efmesh compares column names. d may
// be nil (no normalisation).
func IdentKey(d Dialect, name string) string {
	if n, ok := d.(IdentNormalizer); ok {
		name = n.NormalizeIdent(name)
	}
	return strings.ToLower(name)
}

// SameIdent reports whether d holds a and b as one name (IdentKey).
func SameIdent(d Dialect, a, b string) bool { return IdentKey(d, a) == IdentKey(d, b) }
