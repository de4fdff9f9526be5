package postgres

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The binder's small helpers: column lists, node comparison and
// "did you mean".

func lastName(ns []*pg_query.Node) string {
	if len(ns) == 0 {
		return ""
	}
	return ns[len(ns)-1].GetString_().GetSval()
}

// functionSchema is a function name's qualifier unless it is pg_catalog.
func functionSchema(ns []*pg_query.Node) []string {
	var q []string
	for _, n := range ns[:max(len(ns)-1, 0)] {
		q = append(q, n.GetString_().GetSval())
	}
	if len(q) == 1 && q[0] == "pg_catalog" {
		return nil
	}
	return q
}

// bareName reports whether n is a one-part column reference.
func bareName(n *pg_query.Node) (string, int32, bool) {
	cr := n.GetColumnRef()
	if cr == nil || len(cr.Fields) != 1 {
		return "", 0, false
	}
	s := cr.Fields[0].GetString_()
	if s == nil {
		return "", 0, false
	}
	return s.Sval, cr.Location, true
}

func indexes(cols []column, name string) []int {
	var out []int
	for i, c := range cols {
		if c.name == name {
			out = append(out, i)
		}
	}
	return out
}

func names(cols []column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.name
	}
	return out
}

// without removes the first column called name.
func without(cols []column, name string) []column {
	for i, c := range cols {
		if c.name == name {
			return append(cols[:i:i], cols[i+1:]...)
		}
	}
	return cols
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// minLoc is the smallest source location in m's subtree, -1 for none.
func minLoc(m proto.Message) int32 {
	best := int32(-1)
	if m == nil || !m.ProtoReflect().IsValid() {
		return best
	}
	eachMessage(m.ProtoReflect(), func(pm protoreflect.Message) {
		if fd := pm.Descriptor().Fields().ByName("location"); fd != nil && fd.Kind() == protoreflect.Int32Kind {
			if l := int32(pm.Get(fd).Int()); l >= 0 && (best < 0 || l < best) && pm.Has(fd) {
				best = l
			}
		}
	})
	return best
}

// sameExpr compares two expressions ignoring where they are written.
func sameExpr(a, b *pg_query.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	ca, cb := proto.Clone(a), proto.Clone(b)
	clearLocations(ca.ProtoReflect())
	clearLocations(cb.ProtoReflect())
	return proto.Equal(ca, cb)
}

func clearLocations(pm protoreflect.Message) {
	eachMessage(pm, func(pm protoreflect.Message) {
		if fd := pm.Descriptor().Fields().ByName("location"); fd != nil {
			pm.Clear(fd)
		}
	})
}

// eachMessage calls fn on pm and every message below it, parents first.
func eachMessage(pm protoreflect.Message, fn func(protoreflect.Message)) {
	fn(pm)
	pm.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				eachMessage(l.Get(i).Message(), fn)
			}
			return true
		}
		eachMessage(v.Message(), fn)
		return true
	})
}

// closest returns the names of pool nearest to name, for "did you mean",
// by PostgreSQL's rule for its column hints: at most three edits and at
// most half the candidate's length, best distance only (up to three ties).
// The distance ignores case and counts a transposition as one edit.
func closest(name string, pool []string) []string {
	best := 4
	var out []string
	seen := map[string]bool{name: true}
	for _, p := range pool {
		if seen[p] {
			continue
		}
		seen[p] = true
		d := editDistance(strings.ToLower(name), strings.ToLower(p))
		if d > len([]rune(p))/2 || d > best {
			continue
		}
		if d < best {
			best, out = d, nil
		}
		if len(out) < 3 {
			out = append(out, p)
		}
	}
	return out
}

// editDistance is the optimal string alignment distance over runes.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
