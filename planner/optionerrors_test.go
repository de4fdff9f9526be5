package planner

import (
	"strings"
	"testing"
)

// The planner's errors about plan options name no command-line flag: each
// front end phrases them (the CLI with its flags, in cmd/efmesh/cli).
func TestOptionErrorsNameNoFlag(t *testing.T) {
	for _, err := range []error{
		&UnknownModelError{Option: OptionRestate, Name: "s.dayly", Suggestion: "s.daily"},
		&OptionError{Option: OptionRestate, Reason: "s.a is FULL: only INCREMENTAL_BY_TIME_RANGE models have intervals"},
		&OptionError{Option: OptionForwardOnly, Model: "s.h", Reason: "column(s) x would be dropped, which the history table cannot express",
			Instead: "rebuild its history instead", InsteadOption: OptionRebuildHistory},
		&RestateRangeError{Model: "s.d", From: "2026-01-03T00:00:00Z", To: "2026-01-02T00:00:00Z"},
		&ReclassifyError{Model: "s.a", Reason: "a column changed type"},
		&HistoryRebuildError{Models: []string{"s.h", "s.k"}},
	} {
		if msg := err.Error(); strings.Contains(msg, "--") {
			t.Errorf("%T names a flag: %s", err, msg)
		}
	}
	if got, want := (&UnknownModelError{Option: OptionRestate, Name: "s.dayly", Suggestion: "s.daily"}).Error(),
		`restate: unknown model "s.dayly"; did you mean "s.daily"?`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
