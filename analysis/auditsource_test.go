package analysis

import (
	"slices"
	"testing"
)

// An audit file's SQL is metadata: an edit is named, and a stored
// definition written before efmesh recorded the files (nil) is unknown,
// never a change.
func TestMetadataChangesAuditSources(t *testing.T) {
	src := func(sql string) []AuditSource {
		return []AuditSource{{Name: "positive", File: "audits/positive.sql", SQL: sql}}
	}
	for _, c := range []struct {
		name        string
		stored, now []AuditSource
		want        []string
	}{
		{"same", src("a"), src("a"), nil},
		{"edited", src("a"), src("b"), []string{"audit audits/positive.sql"}},
		{"unknown", nil, src("b"), nil},
	} {
		got := MetadataChanges(Definition{AuditSources: c.stored}, Definition{AuditSources: c.now})
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
