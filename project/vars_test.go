package project

import (
	"errors"
	"testing"
)

func TestExpandVars(t *testing.T) {
	env := map[string]string{"USER": "ann", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, tc := range []struct{ in, want, unset string }{
		{"postgres://${USER}@h/db", "postgres://ann@h/db", ""},
		{"postgres://${USER}:pa$$word@h", "postgres://ann:pa$$word@h", ""}, // a bare $ stays
		{"${MISSING:-fallback}/${USER}", "fallback/ann", ""},
		{"${EMPTY:-fallback}", "fallback", ""},
		{"x${EMPTY}y", "xy", ""}, // set but empty: no default asked for
		{"postgres://${MISSING}@h", "", "MISSING"},
	} {
		got, err := ExpandVars(tc.in, lookup)
		var ue *UnsetVarError
		switch {
		case tc.unset != "":
			if !errors.As(err, &ue) || ue.Name != tc.unset {
				t.Errorf("%q: err %v, want %s unset", tc.in, err, tc.unset)
			}
		case err != nil || got != tc.want:
			t.Errorf("%q = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := ExpandVars("${1X}", lookup); err == nil {
		t.Error("a bad name expanded")
	}
	if _, err := ExpandVars("${USER", lookup); err == nil {
		t.Error("an unclosed reference expanded")
	}
}
