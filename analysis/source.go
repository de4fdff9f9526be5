package analysis

import (
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/project"
)

// Source writes back the model file a stored definition was loaded from:
// the MODEL header of every property the definition keeps, then the body.
// Loading it gives the same fingerprint as the stored snapshot when the
// files it reads (a seed's CSV) did not change; callers compare. A plan
// of a selection stands an unselected model's stored version in for its
// file this way (workspace.Selection).
func (d Definition) Source() []byte {
	var props []string
	add := func(format string, args ...any) { props = append(props, fmt.Sprintf(format, args...)) }
	add("name %s", d.Name)
	add("kind %s", kindText(d.Kind))
	if d.Interval != "" {
		add("interval %s", d.Interval)
	}
	if d.Start != "" {
		add("start %s", quoteSQL(d.Start))
	}
	if d.Cron != "" {
		add("cron %s", quoteSQL(d.Cron))
	}
	if len(d.Grain) > 0 {
		add("grain (%s)", strings.Join(d.Grain, ", "))
	}
	if len(d.Columns) > 0 {
		cols := make([]string, len(d.Columns))
		for i, c := range d.Columns {
			cols[i] = c.Name + " " + c.Type
		}
		add("columns (%s)", strings.Join(cols, ", "))
	}
	if len(d.Audits) > 0 {
		add("audits (%s)", strings.Join(d.Audits, ", "))
	}
	if d.Target != "" {
		add("target %s", d.Target)
	}
	if d.Description != "" {
		add("description %s", quoteSQL(d.Description))
	}
	if d.Owner != "" {
		add("owner %s", quoteSQL(d.Owner))
	}
	if len(d.Tags) > 0 {
		add("tags (%s)", strings.Join(d.Tags, ", "))
	}
	if d.Answerable != "" {
		add("answerable %s", d.Answerable)
	}
	if len(d.Caveats) > 0 {
		q := make([]string, len(d.Caveats))
		for i, c := range d.Caveats {
			q[i] = quoteSQL(c)
		}
		add("caveats (%s)", strings.Join(q, ", "))
	}
	if d.Export != nil {
		add("export (attach %s, table %s.%s)", d.Export.Attach, d.Export.Schema, d.Export.Table)
	}
	var b strings.Builder
	b.WriteString("MODEL (\n")
	for i, p := range props {
		b.WriteString("  " + p)
		if i < len(props)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString(");\n")
	b.WriteString(d.Body)
	return []byte(b.String())
}

// kindText writes a kind as its header property value.
func kindText(k project.Kind) string {
	var opts []string
	switch k.Name {
	case project.KindIncrementalByTimeRange:
		opts = append(opts, "time_column "+k.TimeColumn)
		if k.BatchSize > 0 {
			opts = append(opts, fmt.Sprintf("batch_size %d", k.BatchSize))
		}
		if k.Lookback > 0 {
			opts = append(opts, fmt.Sprintf("lookback %d", k.Lookback))
		}
	case project.KindIncrementalByUniqueKey:
		opts = append(opts, "key ("+strings.Join(k.Key, ", ")+")")
	case project.KindSCDType2:
		opts = append(opts, "key ("+strings.Join(k.Key, ", ")+")")
		if k.ValidFrom != "" {
			opts = append(opts, "valid_from "+k.ValidFrom)
		}
		if k.ValidTo != "" {
			opts = append(opts, "valid_to "+k.ValidTo)
		}
	case project.KindSeed:
		opts = append(opts, "path "+quoteSQL(k.Path))
	case project.KindExternal:
		if k.Table != "" {
			opts = append(opts, "table "+k.Table)
		}
		if k.Files != "" {
			opts = append(opts, "files "+quoteSQL(k.Files))
		}
		if k.Format != "" {
			opts = append(opts, "format "+k.Format)
		}
	}
	for _, o := range k.Options {
		v := o.Value
		if o.IsString {
			v = quoteSQL(v)
		}
		opts = append(opts, o.Name+" "+v)
	}
	if len(opts) == 0 {
		return string(k.Name)
	}
	return string(k.Name) + " (" + strings.Join(opts, ", ") + ")"
}

func quoteSQL(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
