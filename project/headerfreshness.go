package project

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Freshness is the freshness property of an EXTERNAL model: how old the
// newest value of Column of the source may be before `efmesh status
// --check` and `efmesh run` warn (WarnAfter) or count the source as
// failed (ErrorAfter). Zero durations are not set. Outside the
// fingerprint: a change of it rebuilds nothing.
type Freshness struct {
	Column     string        `json:"column"`
	WarnAfter  time.Duration `json:"warnAfter,omitempty"`
	ErrorAfter time.Duration `json:"errorAfter,omitempty"`
}

// freshnessUnits are the units a freshness duration may be written in,
// singular or plural.
var freshnessUnits = map[string]time.Duration{
	"minute": time.Minute, "minutes": time.Minute,
	"hour": time.Hour, "hours": time.Hour,
	"day": 24 * time.Hour, "days": 24 * time.Hour,
}

// FormatAge writes a freshness duration as a header writes it: "6 hours",
// "1 day", "90 minutes".
func FormatAge(d time.Duration) string {
	unit, n := "minute", int64(d/time.Minute)
	switch {
	case d > 0 && d%(24*time.Hour) == 0:
		unit, n = "day", int64(d/(24*time.Hour))
	case d > 0 && d%time.Hour == 0:
		unit, n = "hour", int64(d/time.Hour)
	}
	if n != 1 {
		unit += "s"
	}
	return fmt.Sprintf("%d %s", n, unit)
}

// parseFreshness reads freshness (column <c>, warn_after <n> <unit>,
// error_after <n> <unit>): a column and at least one of the two ages.
func (p *headerParser) parseFreshness(name token, c *cursor) bool {
	open := c.peek()
	if !open.isPunct("(") {
		p.errorf(open.start, open.end, CodeBadValue, "freshness must be a list: freshness (column <c>, warn_after 6 hours, error_after 1 day)")
		return false
	}
	items, ok := p.group(c)
	if !ok {
		return false
	}
	f := &Freshness{}
	options := []string{"column", "warn_after", "error_after"}
	var warnTok []token
	aged := false // warn_after or error_after was written, right or wrong
	for _, it := range items {
		key := it[0]
		if key.kind != tokIdent || key.parts != 1 || len(it) < 2 {
			s, e := span(it)
			p.errorf(s, e, CodeBadValue, "freshness takes column <c>, warn_after <n> <unit> and error_after <n> <unit>, found %s", p.describeSpan(it))
			continue
		}
		switch strings.ToLower(key.val) {
		case "column":
			v := it[1]
			if len(it) != 2 || v.kind != tokIdent || v.parts != 1 {
				s, e := span(it[1:])
				p.errorf(s, e, CodeBadValue, "column must name one column of the source, found %s", p.describeSpan(it[1:]))
				continue
			}
			f.Column, p.freshCol = v.val, v
		case "warn_after", "error_after":
			aged = true
			d, ok := p.age(strings.ToLower(key.val), it[1:])
			if !ok {
				continue
			}
			if strings.EqualFold(key.val, "warn_after") {
				f.WarnAfter, warnTok = d, it
			} else {
				f.ErrorAfter = d
			}
		default:
			p.unknownName(key, "option of freshness", options)
		}
	}
	switch {
	case f.Column == "":
		p.errorf(name.start, open.end, CodeBadValue, "freshness needs the column whose newest value is checked: freshness (column <c>, …)")
		return true
	case !aged:
		p.errorf(name.start, open.end, CodeBadValue, "freshness needs warn_after or error_after (or both): freshness (column %s, warn_after 6 hours, error_after 1 day)", f.Column)
		return true
	case f.WarnAfter == 0 && f.ErrorAfter == 0:
		return true // the ages' errors are said
	case f.WarnAfter > 0 && f.ErrorAfter > 0 && f.WarnAfter >= f.ErrorAfter:
		s, e := span(warnTok)
		p.errorf(s, e, CodeBadValue, "warn_after (%s) must be shorter than error_after (%s): a source warns before it fails", FormatAge(f.WarnAfter), FormatAge(f.ErrorAfter))
		return true
	}
	p.m.Freshness = f
	return true
}

// age reads "<n> <unit>" of a freshness option.
func (p *headerParser) age(option string, toks []token) (time.Duration, bool) {
	s, e := span(toks)
	if len(toks) != 2 || toks[0].kind != tokNumber || toks[1].kind != tokIdent {
		p.errorf(s, e, CodeBadValue, "%s must be a whole number and a unit (minutes, hours or days), e.g. %s 6 hours; found %s", option, option, p.describeSpan(toks))
		return 0, false
	}
	n, err := strconv.Atoi(toks[0].val)
	if err != nil || n <= 0 || n > 100000 {
		p.errorf(toks[0].start, toks[0].end, CodeBadValue, "%s: %s must be a whole number from 1 to 100000", option, toks[0].val)
		return 0, false
	}
	unit, ok := freshnessUnits[strings.ToLower(toks[1].val)]
	if !ok {
		p.errorf(toks[1].start, toks[1].end, CodeBadValue, "%s: unknown unit %q; expected minutes, hours or days", option, toks[1].val)
		return 0, false
	}
	return time.Duration(n) * unit, true
}
