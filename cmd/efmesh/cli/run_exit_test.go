package cli

import (
	"testing"

	"github.com/efmesh/efmesh/state"
)

// TestTickExitCode: the frozen exit codes of a run tick, by outcome.
func TestTickExitCode(t *testing.T) {
	for outcome, want := range map[string]int{
		state.RunOK:            ExitOK,
		state.RunAwaitingHuman: ExitAwaiting,
		state.RunLockHeld:      ExitError,
		state.RunError:         ExitError,
		state.RunInterrupted:   ExitInterrupted,
	} {
		if got := tickExitCode(outcome); got != want {
			t.Errorf("%s: exit %d, want %d", outcome, got, want)
		}
	}
}
