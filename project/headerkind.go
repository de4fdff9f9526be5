package project

import (
	"errors"
	"path"
	"slices"
	"strconv"
	"strings"
)

// The kind property: the kinds, their options and the reader options of
// EXTERNAL models.

var kindNames = []string{
	string(KindFull), string(KindView), string(KindEmbedded),
	string(KindIncrementalByTimeRange), string(KindIncrementalByUniqueKey),
	string(KindSCDType2), string(KindSeed), string(KindExternal),
}

// KindNames lists the model kinds, for completion.
func KindNames() []string { return slices.Clone(kindNames) }

// maxIntervals bounds the numbers of intervals a header names (batch_size,
// lookback). A million hours is 114 years and a million days 2,700: more
// than any history, so the bound refuses no real model, and it keeps the
// interval arithmetic far from time's limits (a million hours is 3.6e18 ns,
// under time.Duration's 9.2e18), where a batch of 3,000,000 hours wrapped
// to a negative step and a backfill never ended.
const maxIntervals = 1_000_000

// option is one "name value" entry of a kind's argument list.
type option struct {
	name  string
	tok   token
	value []token
}

// kindOptions lists the options each kind accepts. EXTERNAL with files
// passes any other option through to the reader.
var kindOptions = map[KindName][]string{
	KindIncrementalByTimeRange: {"time_column", "batch_size", "lookback"},
	KindIncrementalByUniqueKey: {"key"},
	KindSCDType2:               {"key", "valid_from", "valid_to"},
	KindSeed:                   {"path"},
	KindExternal:               {"table", "files", "format"},
}

func (p *headerParser) parseKind(_ token, c *cursor) bool {
	t := c.next()
	if t.kind != tokIdent || t.parts != 1 || t.quoted {
		p.errorf(t.start, t.end, CodeBadValue, "expected a kind (%s), found %s", strings.Join(kindNames, ", "), p.describe(t))
		return false
	}
	name := strings.ToUpper(t.val)
	if !slices.Contains(kindNames, name) {
		d := p.diag(t.start, t.end, CodeBadValue, "unknown kind %s", t.val)
		if s, ok := DidYouMean(name, kindNames); ok {
			d.Message += "; did you mean " + s + "?"
			d.Fixes = []Fix{{Title: "Change to " + s, Edits: []TextEdit{{File: p.file, Start: t.start, End: t.end, NewText: s}}}}
		} else {
			d.Message += " (known: " + strings.Join(kindNames, ", ") + ")"
		}
		p.add(d)
		return false
	}
	k := Kind{Name: KindName(name)}

	var opts []option
	if c.peek().isPunct("(") {
		items, ok := p.group(c)
		if !ok {
			return false
		}
		seen := map[string]bool{}
		for _, it := range items {
			nt := it[0]
			if nt.kind != tokIdent || nt.parts != 1 || nt.quoted {
				p.errorf(nt.start, nt.end, CodeHeaderSyntax, "expected an option name, found %s", p.describe(nt))
				continue
			}
			o := option{name: strings.ToLower(nt.val), tok: nt, value: it[1:]}
			if seen[o.name] {
				p.errorf(nt.start, nt.end, CodeDuplicateProperty, "duplicate option %s", o.name)
				continue
			}
			seen[o.name] = true
			if len(o.value) == 0 {
				p.errorf(nt.start, nt.end, CodeHeaderSyntax, "option %s needs a value", o.name)
				continue
			}
			opts = append(opts, o)
		}
	}

	known := kindOptions[k.Name]
	has := map[string]option{}
	for _, o := range opts {
		switch {
		case slices.Contains(known, o.name):
			has[o.name] = o
			p.kindOption(&k, o)
		case k.Name == KindExternal:
			k.Options = append(k.Options, p.readerOption(o))
		case len(known) == 0:
			p.errorf(o.tok.start, o.tok.end, CodeUnknownProperty, "kind %s takes no options", k.Name)
		default:
			p.unknownName(o.tok, "option of "+string(k.Name)+"", known)
		}
	}

	missing := func(opt, example string) {
		p.errorf(t.start, t.end, CodeBadValue, "kind %s needs %s: %s (%s)", k.Name, opt, k.Name, example)
	}
	switch k.Name {
	case KindIncrementalByTimeRange:
		if _, ok := has["time_column"]; !ok {
			missing("time_column", "time_column <column>")
		}
	case KindIncrementalByUniqueKey:
		if _, ok := has["key"]; !ok {
			missing("key", "key (<column>, …)")
		}
	case KindSCDType2:
		if _, ok := has["key"]; !ok {
			missing("key", "key (<column>, …)")
		}
		if k.ValidFrom == "" {
			k.ValidFrom = "valid_from"
		}
		if k.ValidTo == "" {
			k.ValidTo = "valid_to"
		}
	case KindSeed:
		if _, ok := has["path"]; !ok {
			missing("path", "path 'seeds/<file>.csv'")
		}
	case KindExternal:
		table, hasTable := has["table"]
		files, hasFiles := has["files"]
		switch {
		case hasTable && hasFiles:
			later := files
			if files.tok.start < table.tok.start {
				later = table
			}
			p.errorf(later.tok.start, later.tok.end, CodeBadValue, "kind EXTERNAL takes either table or files, not both")
		case !hasTable && !hasFiles:
			missing("table or files", "table <schema.table> or files '<glob>'")
		case hasTable:
			if f, ok := has["format"]; ok {
				p.errorf(f.tok.start, f.tok.end, CodeBadValue, "format applies to files, not to table")
			}
			for _, o := range opts {
				if !slices.Contains(known, o.name) {
					p.errorf(o.tok.start, o.tok.end, CodeBadValue, "reader option %s applies to files, not to table", o.name)
				}
			}
		case hasFiles && k.Format == "" && k.Files != "":
			if f := formatOf(k.Files); f != "" {
				k.Format = f
			} else if _, ok := has["format"]; !ok {
				s, e := span(files.value)
				p.errorf(s, e, CodeBadValue, "cannot infer the format of %q from its extension: add format parquet, csv or json", k.Files)
			}
		}
	}
	p.m.Kind = k
	return true
}

// kindOption parses a known option of kind k into it.
func (p *headerParser) kindOption(k *Kind, o option) {
	c := newCursor(o.value, o.tok.end)
	ok := true
	switch o.name {
	case "time_column", "valid_from", "valid_to":
		var t token
		if t, ok = p.ident(c, o.name+" column"); ok {
			switch o.name {
			case "time_column":
				k.TimeColumn = t.val
			case "valid_from":
				k.ValidFrom = t.val
			case "valid_to":
				k.ValidTo = t.val
			}
		}
	case "batch_size", "lookback":
		t := c.next()
		n, err := strconv.Atoi(t.val)
		minimum := 1
		if o.name == "lookback" {
			minimum = 0
		}
		s, e := span(o.value)
		if t.kind == tokNumber && len(o.value) == 1 && (errors.Is(err, strconv.ErrRange) || err == nil && n > maxIntervals) {
			p.errorf(s, e, CodeBadValue, "%s must be at most %d intervals, found %s", o.name, maxIntervals, p.describeSpan(o.value))
			return
		}
		if t.kind != tokNumber || err != nil || n < minimum || len(o.value) != 1 {
			want := "a positive integer"
			if minimum == 0 {
				want = "a non-negative integer"
			}
			p.errorf(s, e, CodeBadValue, "%s must be %s, found %s", o.name, want, p.describeSpan(o.value))
			return
		}
		if o.name == "batch_size" {
			k.BatchSize = n
		} else {
			k.Lookback = n
		}
	case "key":
		var key []string
		if key, ok = p.nameList(c, "a key column", false); ok {
			if len(key) == 0 {
				s, e := span(o.value)
				p.errorf(s, e, CodeBadValue, "key needs at least one column")
				return
			}
			k.Key = key
		}
	case "path", "files":
		var t token
		if t, ok = p.str(c, o.name); ok {
			if strings.TrimSpace(t.val) == "" {
				p.errorf(t.start, t.end, CodeBadValue, "%s is empty", o.name)
				return
			}
			if o.name == "path" {
				k.Path = t.val
			} else {
				k.Files = t.val
			}
		}
	case "table":
		t := c.next()
		if t.kind != tokIdent {
			p.errorf(t.start, t.end, CodeBadValue, "table must be a table name such as raw.events, found %s", p.describe(t))
			return
		}
		k.Table = t.val
	case "format":
		var v string
		if v, ok = p.keyword(c, "format", "parquet", "csv", "json"); ok {
			k.Format = v
		}
	}
	if ok && !c.done() {
		s, e := span(c.rest())
		p.errorf(s, e, CodeHeaderSyntax, "unexpected %s after the %s value (options are separated by commas)", p.describe(c.peek()), o.name)
	}
}

// readerOption keeps an EXTERNAL files option for the reader as written.
func (p *headerParser) readerOption(o option) Option {
	if len(o.value) == 1 {
		t := o.value[0]
		switch t.kind {
		case tokString:
			return Option{Name: o.name, Value: t.val, IsString: true}
		case tokIdent:
			return Option{Name: o.name, Value: string(p.src[t.start:t.end])}
		}
	}
	return Option{Name: o.name, Value: p.joinTokens(o.value)}
}

// formatOf infers a reader format from a file name or glob, looking through
// a compression suffix.
func formatOf(files string) string {
	name := strings.ToLower(files)
	for _, z := range []string{".gz", ".gzip", ".zst", ".zstd"} {
		name = strings.TrimSuffix(name, z)
	}
	switch path.Ext(name) {
	case ".parquet":
		return "parquet"
	case ".csv", ".tsv":
		return "csv"
	case ".json", ".jsonl", ".ndjson":
		return "json"
	}
	return ""
}
