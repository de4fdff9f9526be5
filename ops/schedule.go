package ops

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/efmesh/efmesh/project"
)

// Schedule is when the run tick of a project should fire: the distinct
// crons its models declare, the project's default cron when a FULL model
// declares none (it decides when that model is refreshed), plus a default
// for the incremental models that declare none (hourly when one of them
// has hourly intervals, else daily).
// A tick computes whatever is due, so firing more often than a model needs
// costs one no-op plan.
type Schedule struct {
	// Crons are five-field cron expressions (aliases expanded), sorted.
	Crons []string
	// Reasons say where each cron came from, by index.
	Reasons []string
}

var cronAliasFields = map[string]string{
	"@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@weekly": "0 0 * * 0",
	"@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *",
}

// ScheduleOf derives the run tick's schedule from the project's models.
func ScheduleOf(p *project.Project) Schedule {
	from := map[string][]string{}
	add := func(cron, why string) {
		if f, ok := cronAliasFields[strings.ToLower(cron)]; ok {
			cron = f
		}
		cron = strings.Join(strings.Fields(cron), " ")
		from[cron] = append(from[cron], why)
	}
	hourly, daily, full := []string{}, []string{}, []string{}
	for _, m := range p.Models {
		switch {
		case m.Cron != "":
			add(m.Cron, m.Name)
		case m.Kind.Name == project.KindFull:
			full = append(full, m.Name)
		case m.Kind.Name == project.KindIncrementalByTimeRange && m.Interval == "hour":
			hourly = append(hourly, m.Name)
		case m.Kind.Name == project.KindIncrementalByTimeRange:
			daily = append(daily, m.Name)
		}
	}
	if len(full) > 0 {
		add(p.Config.CronOf(&project.Model{}), "default cron of FULL "+strings.Join(full, ", "))
	}
	switch {
	case len(hourly) > 0:
		add("0 * * * *", "hourly intervals of "+strings.Join(hourly, ", "))
	case len(daily) > 0:
		add("0 0 * * *", "daily intervals of "+strings.Join(daily, ", "))
	case len(from) == 0:
		add("0 0 * * *", "no model declares a cron or has intervals: daily")
	}
	var s Schedule
	for c := range from {
		s.Crons = append(s.Crons, c)
	}
	sort.Strings(s.Crons)
	for _, c := range s.Crons {
		s.Reasons = append(s.Reasons, strings.Join(from[c], ", "))
	}
	return s
}

var weekdays = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// OnCalendar translates a five-field cron expression into a systemd
// OnCalendar value. Numbers, lists, ranges and steps are translated; names
// (JAN, MON) are refused; times are UTC, like the intervals, as is a cron restricting both day of month and
// day of week (cron ORs them, systemd ANDs them).
func OnCalendar(cron string) (string, error) {
	f := strings.Fields(cron)
	if len(f) != 5 {
		return "", fmt.Errorf("cron %q does not have five fields", cron)
	}
	if f[2] != "*" && f[4] != "*" {
		return "", fmt.Errorf("cron %q restricts both the day of month and the weekday, which systemd cannot express; use --print-cron", cron)
	}
	conv := func(v string, base int) (string, error) {
		var parts []string
		for _, item := range strings.Split(v, ",") {
			rng, step, hasStep := strings.Cut(item, "/")
			out := ""
			switch {
			case rng == "*" && hasStep:
				out = strconv.Itoa(base)
			case rng == "*":
				out = "*"
			case strings.Contains(rng, "-"):
				a, b, _ := strings.Cut(rng, "-")
				if !isDigits(a) || !isDigits(b) {
					return "", fmt.Errorf("cron %q: %q is not a number range", cron, rng)
				}
				out = a + ".." + b
			case isDigits(rng):
				out = rng
			default:
				return "", fmt.Errorf("cron %q: %q is not supported here; use numbers, or --print-cron", cron, item)
			}
			if hasStep {
				if !isDigits(step) || strings.Contains(out, "..") {
					return "", fmt.Errorf("cron %q: step %q is not supported here; use --print-cron", cron, item)
				}
				out += "/" + step
			}
			parts = append(parts, out)
		}
		return strings.Join(parts, ","), nil
	}
	minute, err := conv(f[0], 0)
	if err != nil {
		return "", err
	}
	hour, err := conv(f[1], 0)
	if err != nil {
		return "", err
	}
	dom, err := conv(f[2], 1)
	if err != nil {
		return "", err
	}
	month, err := conv(f[3], 1)
	if err != nil {
		return "", err
	}
	dow := ""
	if f[4] != "*" {
		var days []string
		for _, item := range strings.Split(f[4], ",") {
			a, b, isRange := strings.Cut(item, "-")
			ai, aerr := strconv.Atoi(a)
			if aerr != nil || ai < 0 || ai > 7 {
				return "", fmt.Errorf("cron %q: weekday %q is not supported here; use 0-7, or --print-cron", cron, item)
			}
			if !isRange {
				days = append(days, weekdays[ai])
				continue
			}
			bi, berr := strconv.Atoi(b)
			if berr != nil || bi < ai || bi > 7 {
				return "", fmt.Errorf("cron %q: weekday range %q is not supported here; use --print-cron", cron, item)
			}
			days = append(days, weekdays[ai]+".."+weekdays[bi])
		}
		dow = strings.Join(days, ",") + " "
	}
	pad := func(s string) string {
		if len(s) == 1 && isDigits(s) {
			return "0" + s
		}
		return s
	}
	return fmt.Sprintf("%s*-%s-%s %s:%s:00 UTC", dow, month, dom, pad(hour), pad(minute)), nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
