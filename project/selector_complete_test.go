package project

import (
	"slices"
	"testing"
)

func TestCompleteSelector(t *testing.T) {
	p := selectorProject(t)
	tests := []struct {
		typed string
		want  []string
	}{
		{"core.c_", names("core.c_{0..7}")},
		{"rep", names("report.r_{0..3}")},
		{"t", []string{"tag:"}},
		{"tag:", []string{"tag:core", "tag:mart", "tag:nightly", "tag:raw", "tag:report", "tag:staging"}},
		{"tag:n", []string{"tag:nightly"}},
		{"kind:inc", []string{"kind:incremental", "kind:incremental_by_time_range", "kind:incremental_by_unique_key"}},
		{"path:models/m", []string{"path:models/mart/**", "path:models/mart/reports/**"}},
		// A graph operator and earlier terms are kept.
		{"+mart.m_", []string{"+mart.m_0", "+mart.m_1", "+mart.m_2", "+mart.m_3", "+mart.m_4", "+mart.m_5"}},
		{"2+report.r_3", []string{"2+report.r_3"}},
		{"+tag:ni", []string{"+tag:nightly"}},
		{"core.c_0,stg.s_7", []string{"core.c_0,stg.s_7"}},
		{"core.c_0 raw.src_5", []string{"core.c_0 raw.src_5"}},
		{"nope", nil},
	}
	for _, tc := range tests {
		if got := CompleteSelector(p, tc.typed); !slices.Equal(got, tc.want) {
			t.Errorf("CompleteSelector(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}
