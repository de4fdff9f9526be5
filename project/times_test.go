package project

import (
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	want := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	for _, s := range []string{"2026-01-02 15:00:00", "2026-01-02T15:00:00", "2026-01-02T15:00:00Z", "2026-01-02T16:00:00+01:00", "2026-01-02 16:00:00+01:00", "2026-01-02T15:00:00.000Z"} {
		got, err := ParseTime(s)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if got, err := ParseTime("2026-01-02"); err != nil || !got.Equal(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("date: %v, %v", got, err)
	}
	for _, s := range []string{"", "yesterday", "2026-13-01", "02/01/2026", "2026-01-02T25:00:00Z"} {
		if _, err := ParseTime(s); err == nil {
			t.Errorf("ParseTime(%q) accepted", s)
		}
	}
}
