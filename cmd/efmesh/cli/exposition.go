package cli

import (
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The metrics of one command in the text exposition format (version
// 0.0.4), which node_exporter's textfile collector reads: counters and
// gauges with labels, nothing else. Written here rather than with a client
// library, whose package initialisation every command would pay.

// labelSet names one series of a family: label name → value.
type labelSet map[string]string

// metricFamily is one metric: its name, help, type and series.
type metricFamily struct {
	name, help, kind string
	labels           []string // the label names, as declared

	mu     sync.Mutex
	series map[string]*metricSeries // by the labels' encoded values
}

type metricSeries struct {
	labels labelSet
	value  float64
}

// metricRegistry is the families of one command, in registration order.
type metricRegistry struct {
	families []*metricFamily
}

func (r *metricRegistry) add(kind, name, help string, labels []string) *metricFamily {
	f := &metricFamily{name: name, help: help, kind: kind, labels: labels, series: map[string]*metricSeries{}}
	r.families = append(r.families, f)
	return f
}

// with is the series of l, created at zero.
func (f *metricFamily) with(l labelSet) *metricSeries {
	var key strings.Builder
	for _, n := range f.labels {
		key.WriteString(l[n])
		key.WriteByte(0)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.series[key.String()]
	if !ok {
		s = &metricSeries{labels: maps.Clone(l)}
		f.series[key.String()] = s
	}
	return s
}

// With, Set, Add and Inc: the series' value, under the family's lock.
func (f *metricFamily) With(l labelSet) seriesRef { return seriesRef{f, f.with(l)} }

type seriesRef struct {
	f *metricFamily
	s *metricSeries
}

func (r seriesRef) Set(v float64) { r.f.mu.Lock(); r.s.value = v; r.f.mu.Unlock() }
func (r seriesRef) Add(v float64) { r.f.mu.Lock(); r.s.value += v; r.f.mu.Unlock() }
func (r seriesRef) Inc()          { r.Add(1) }

// text is the registry in the exposition format: families by name, each
// with its series ordered by their label values (label names sorted in a
// series); a family without series is left out.
func (r *metricRegistry) text() string {
	var b strings.Builder
	fams := slices.Clone(r.families)
	slices.SortFunc(fams, func(x, y *metricFamily) int { return strings.Compare(x.name, y.name) })
	for _, f := range fams {
		f.mu.Lock()
		if len(f.series) == 0 {
			f.mu.Unlock()
			continue
		}
		names := slices.Sorted(slices.Values(f.labels))
		series := slices.Collect(maps.Values(f.series))
		slices.SortFunc(series, func(x, y *metricSeries) int {
			for _, n := range names {
				if c := strings.Compare(x.labels[n], y.labels[n]); c != 0 {
					return c
				}
			}
			return 0
		})
		b.WriteString("# HELP " + f.name + " " + escapeHelp(f.help) + "\n")
		b.WriteString("# TYPE " + f.name + " " + f.kind + "\n")
		for _, s := range series {
			b.WriteString(f.name)
			if len(names) > 0 {
				b.WriteByte('{')
				for i, n := range names {
					if i > 0 {
						b.WriteByte(',')
					}
					b.WriteString(n + `="` + escapeLabel(s.labels[n]) + `"`)
				}
				b.WriteByte('}')
			}
			b.WriteByte(' ')
			b.WriteString(formatSample(s.value))
			b.WriteByte('\n')
		}
		f.mu.Unlock()
	}
	return b.String()
}

func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}

func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`).Replace(s)
}

// formatSample writes a value as the exposition format does.
func formatSample(v float64) string {
	switch {
	case v == 1:
		return "1"
	case v == 0:
		return "0"
	case v == -1:
		return "-1"
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, +1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// writeTextfile writes the registry to path through a temporary file in
// the same folder and a rename: a scraper never reads half a file.
func (r *metricRegistry) writeTextfile(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(r.text()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
