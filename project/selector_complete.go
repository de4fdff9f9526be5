package project

import (
	"path"
	"slices"
	"strings"
)

// CompleteSelector lists what may follow typed, the start of a --select or
// --exclude value, in p: the last term is completed with model names,
// "tag:" with the project's tags, "kind:" with the kinds the grammar
// accepts, "config.materialized:" with dbt's materializations, "state:"
// with what it compares and "path:" with the folders that hold models (as
// dir/**); the terms before it (after a comma, a space or an "&") and a
// leading graph operator (+, 2+, @) are kept, so a shell offers whole
// values. Only candidates that start with typed are
// returned, sorted.
func CompleteSelector(p *Project, typed string) []string {
	cut := strings.LastIndexAny(typed, ", &") + 1
	// A leading [depth]+ or @ of the last term is kept as written.
	op := cut
	for op < len(typed) && typed[op] >= '0' && typed[op] <= '9' {
		op++
	}
	switch {
	case op < len(typed) && typed[op] == '+':
		op++
	case op == cut && op < len(typed) && typed[op] == '@':
		op++
	default:
		op = cut
	}
	keep, term := typed[:op], typed[op:]

	var atoms []string
	switch {
	case strings.HasPrefix(term, "tag:"):
		for _, m := range p.Models {
			for _, t := range m.Tags {
				atoms = append(atoms, "tag:"+t)
			}
		}
	case strings.HasPrefix(term, "kind:"):
		for _, k := range selectorKinds() {
			atoms = append(atoms, "kind:"+k)
		}
	case strings.HasPrefix(term, "config.materialized:"):
		for _, m := range materializedNames {
			atoms = append(atoms, "config.materialized:"+m)
		}
	case strings.HasPrefix(term, "state:"):
		for _, v := range stateValues {
			atoms = append(atoms, "state:"+v)
		}
	case strings.HasPrefix(term, "path:"):
		for _, m := range p.Models {
			for dir := path.Dir(m.File); dir != "." && dir != "/"; dir = path.Dir(dir) {
				atoms = append(atoms, "path:"+dir+"/**")
			}
		}
	default:
		atoms = append(atoms, "tag:", "kind:", "path:", "config.materialized:", "state:")
		for _, m := range p.Models {
			atoms = append(atoms, m.Name)
		}
	}
	var out []string
	for _, a := range atoms {
		if strings.HasPrefix(a, term) {
			out = append(out, keep+a)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
