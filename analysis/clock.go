package analysis

import (
	"fmt"
	"os"
	"time"

	"github.com/efmesh/efmesh/project"
)

// ClockEnv names the variable that pins the clock of plans and runs.
const ClockEnv = "EFMESH_NOW"

// Now is the clock of plans and runs, shared by the CLI and the language
// server: $EFMESH_NOW when set (read by project.ParseTime: a date means
// its midnight UTC), to replay a day or to pin tests; else the current time. A value
// that is neither is an error, returned with the current time. Locks never
// use it: they arbitrate between real processes.
func Now() (time.Time, error) {
	s := os.Getenv(ClockEnv)
	if s == "" {
		return time.Now().UTC(), nil
	}
	t, err := project.ParseTime(s)
	if err != nil {
		return time.Now().UTC(), fmt.Errorf("%s=%q is not a time (write %s); using the current time", ClockEnv, s, project.TimeForms)
	}
	return t, nil
}
