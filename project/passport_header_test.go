package project

import (
	"reflect"
	"strings"
	"testing"
)

func TestParsePassportProperties(t *testing.T) {
	tests := []struct {
		header     string
		answerable string
		caveats    []string
		diags      []string
	}{
		{header: "name a.b, answerable Sampled, caveats 'since March'", answerable: "sampled", caveats: []string{"since March"}},
		{header: "name a.b, caveats ('one', 'two',)", caveats: []string{"one", "two"}},
		{header: "name a.b, answerable most", diags: []string{`1:29: bad-value: answerable must be full or sampled or partial or none, found "most"`}},
		{header: "name a.b, caveats (one)", diags: []string{`1:27: bad-value: a caveat must be a 'quoted string', found "one"`}},
	}
	for _, tt := range tests {
		m, ds := ParseModel("m.sql", []byte("MODEL ("+tt.header+");\nSELECT 1\n"))
		got := diagStrings(ds)
		if strings.Join(got, "\n") != strings.Join(tt.diags, "\n") {
			t.Errorf("%s: diagnostics\n got %q\nwant %q", tt.header, got, tt.diags)
			continue
		}
		if m.Answerable != tt.answerable || len(tt.diags) == 0 && !reflect.DeepEqual(m.Caveats, tt.caveats) {
			t.Errorf("%s: answerable %q caveats %q", tt.header, m.Answerable, m.Caveats)
		}
	}
}
