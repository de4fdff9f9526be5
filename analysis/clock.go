package analysis

import (
	"fmt"
	"os"
	"time"
)

// ClockEnv names the variable that pins the clock of plans and runs.
const ClockEnv = "EFMESH_NOW"

// Now is the clock of plans and runs, shared by the CLI and the language
// server: $EFMESH_NOW when set (RFC 3339, or a date meaning its midnight
// UTC), to replay a day or to pin tests; else the current time. A value
// that is neither is an error, returned with the current time. Locks never
// use it: they arbitrate between real processes.
func Now() (time.Time, error) {
	s := os.Getenv(ClockEnv)
	if s == "" {
		return time.Now().UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t.UTC(), nil
	}
	return time.Now().UTC(), fmt.Errorf("%s=%q is not an RFC 3339 time or a date; using the current time", ClockEnv, s)
}
