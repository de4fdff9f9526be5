package project

import (
	"fmt"
	"time"
)

// timeLayouts are the forms efmesh reads a point in time in, wherever a
// user writes one: a model's or the project's start, the clock
// ($EFMESH_NOW), restatement bounds and unit-test interval bounds. A time
// without an offset is UTC; a date is its midnight UTC.
var timeLayouts = []string{
	"2006-01-02",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05",
	time.RFC3339Nano,
	"2006-01-02 15:04:05Z07:00",
}

// TimeForms names the accepted forms for messages.
const TimeForms = "2026-01-02, 2026-01-02 15:00:00 or 2026-01-02T15:00:00Z"

// ParseTime reads a point in time a user wrote, in UTC. It is the one
// reader of dates and times in efmesh; the error says which forms it takes.
func ParseTime(s string) (time.Time, error) {
	for _, l := range timeLayouts {
		if t, err := time.ParseInLocation(l, s, time.UTC); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time: write %s", s, TimeForms)
}
