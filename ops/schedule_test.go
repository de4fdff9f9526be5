package ops

import "testing"

func TestOnCalendar(t *testing.T) {
	tests := []struct{ cron, want string }{
		{"0 * * * *", "*-*-* *:00:00 UTC"},
		{"*/15 * * * *", "*-*-* *:0/15:00 UTC"},
		{"5 2,14 * * *", "*-*-* 2,14:05:00 UTC"},
		{"0 6 1 1-6 *", "*-1..6-1 06:00:00 UTC"},
		{"30 6 * * 1-5", "Mon..Fri *-*-* 06:30:00 UTC"},
		{"0 0 * * 0,6", "Sun,Sat *-*-* 00:00:00 UTC"},
		{"0 0 1 * 1", ""},   // day of month and weekday: refused
		{"0 0 * JAN *", ""}, // names: refused
		{"0 0 * *", ""},
	}
	for _, tt := range tests {
		got, err := OnCalendar(tt.cron)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%q: %q, want an error", tt.cron, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: %q, %v; want %q", tt.cron, got, err, tt.want)
		}
	}
}
