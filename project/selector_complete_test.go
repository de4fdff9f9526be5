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
		{"c", []string{"config.materialized:", "core.c_0", "core.c_1", "core.c_2", "core.c_3", "core.c_4", "core.c_5", "core.c_6", "core.c_7"}},
		{"config.materialized:t", []string{"config.materialized:table"}},
		{"config.materialized:", []string{"config.materialized:ephemeral", "config.materialized:incremental", "config.materialized:seed", "config.materialized:table", "config.materialized:view"}},
		{"st", []string{"state:", "stg.s_0", "stg.s_1", "stg.s_2", "stg.s_3", "stg.s_4", "stg.s_5", "stg.s_6", "stg.s_7"}},
		{"state:m", []string{"state:modified"}},
		// An intersection's terms and @ are kept too.
		{"tag:core&kind:f", []string{"tag:core&kind:full"}},
		{"tag:mart&@report.r_", []string{"tag:mart&@report.r_0", "tag:mart&@report.r_1", "tag:mart&@report.r_2", "tag:mart&@report.r_3"}},
		{"@tag:ra", []string{"@tag:raw"}},
	}
	for _, tc := range tests {
		if got := CompleteSelector(p, tc.typed); !slices.Equal(got, tc.want) {
			t.Errorf("CompleteSelector(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}
