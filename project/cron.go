package project

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// DefaultCron is when a FULL model is refreshed when neither its header
// nor efmesh.yaml's defaults name a cron.
const DefaultCron = "@daily"

var cronAliases = []string{"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}

// cronParser reads standard five-field expressions (minute hour
// day-of-month month weekday; names, lists, ranges and steps) and the
// aliases. @every and time-zone prefixes are not accepted: a schedule is a
// calendar in UTC, like the intervals.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Cron is a parsed cron expression.
type Cron struct {
	expr  string
	sched cron.Schedule
}

// ParseCron parses a five-field cron expression or one of the aliases
// @hourly, @daily (@midnight), @weekly, @monthly, @yearly (@annually).
func ParseCron(expr string) (Cron, error) {
	s := strings.TrimSpace(expr)
	if strings.HasPrefix(s, "@") && slices.Contains(cronAliases, strings.ToLower(s)) {
		s = strings.ToLower(s)
	} else if strings.HasPrefix(s, "@") || len(strings.Fields(s)) != 5 {
		return Cron{}, fmt.Errorf("%q must have 5 fields (minute hour day month weekday) or be one of %s", expr, strings.Join(cronAliases, ", "))
	}
	sched, err := cronParser.Parse(s)
	if err != nil {
		return Cron{}, fmt.Errorf("%q: %v", expr, err)
	}
	// A day that no month of the expression has (30 2, 31 4) parses, but
	// the schedule never fires: its Next is the zero time, and a refresh
	// recorded until then is an empty interval. The parser looks five years
	// ahead; from cronNeverProbe that covers a 29th of February.
	if sched.Next(cronNeverProbe).IsZero() {
		return Cron{}, fmt.Errorf("%q never fires: none of its months has its day of the month", expr)
	}
	return Cron{expr: s, sched: sched}, nil
}

// cronNeverProbe is where ParseCron looks for a first firing: 2000 was a
// leap year, so a schedule that fires at all fires within five years of it.
var cronNeverProbe = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// String returns the expression as parsed.
func (c Cron) String() string { return c.expr }

// Next returns the first time the cron fires strictly after t, in UTC.
func (c Cron) Next(t time.Time) time.Time {
	if c.sched == nil {
		return time.Time{}
	}
	return c.sched.Next(t.UTC())
}

// CronOf returns a model's effective cron expression: its own, else the
// project's default (efmesh.yaml defaults: {cron: …}), else DefaultCron.
func (c Config) CronOf(m *Model) string {
	switch {
	case m.Cron != "":
		return m.Cron
	case c.Defaults.Cron != "":
		return c.Defaults.Cron
	}
	return DefaultCron
}
