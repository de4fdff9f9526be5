package dbtimport

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// A dbt snapshot ({% snapshot name %} config and a query {% endsnapshot %}
// in snapshots/*.sql) is a history of the query's rows by unique_key:
// efmesh's SCD_TYPE_2. The two agree exactly for strategy='check' with
// check_cols='all' and hard_deletes='invalidate' (or
// invalidate_hard_deletes=true):
//
//   - a version opens when any column of the key's row changes, valid from
//     the time of the snapshot (dbt) or of the refresh (efmesh);
//   - a key the query no longer yields has its version closed then;
//   - the current version has valid_to NULL; the columns are named as
//     dbt names them (dbt_valid_from, dbt_valid_to, or
//     snapshot_meta_column_names).
//
// Where they differ the model is written as SCD_TYPE_2 and reported, with
// the difference:
//
//   - strategy='timestamp': dbt opens a version only when updated_at
//     advances, valid from that updated_at; efmesh on any change of the
//     row, valid from the refresh time.
//   - check_cols naming columns: dbt ignores changes of the other columns.
//   - hard_deletes='ignore' (dbt's default): dbt leaves a vanished key's
//     version open; efmesh closes it. 'new_record' adds a deletion row.
//   - dbt_valid_to_current: dbt's current versions carry that date.
//   - dbt_scd_id and dbt_updated_at: dbt's history has them, efmesh's
//     does not; reported when a model of the project names them.
//   - a unique_key that is an expression, not columns.

var (
	reSnapshot = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)\{%-?\s*snapshot\s+(\w+)\s*-?%\}(.*?)\{%-?\s*endsnapshot\s*-?%\}`)
	})
	reColumn = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\w+$`) })
)

// snapshotBlocks are the snapshots of one file, each body at its lines (a
// body starts with the blank lines before it, so positions stay true).
func snapshotBlocks(rel, under, src string) []*dbtModel {
	var out []*dbtModel
	for _, at := range reSnapshot().FindAllStringSubmatchIndex(src, -1) {
		line, _ := position(src, at[0])
		bodyLine, _ := position(src, at[4])
		body := strings.Repeat("\n", bodyLine-1) + src[at[4]:at[5]]
		out = append(out, &dbtModel{rel: rel, under: under, src: body, name: src[at[2]:at[3]], snapshot: true, at: line})
	}
	return out
}

// snapshotKeys are the config keys a snapshot's conversion reads or that
// change nothing in efmesh.
var snapshotKeys = map[string]bool{"target_schema": true, "target_database": true, "schema": true, "database": true, "alias": true,
	"unique_key": true, "strategy": true, "updated_at": true, "check_cols": true, "hard_deletes": true, "invalidate_hard_deletes": true,
	"snapshot_meta_column_names": true, "dbt_valid_to_current": true, "enabled": true, "tags": true, "meta": true, "docs": true, "persist_docs": true}

// snapshot writes one dbt snapshot as an SCD_TYPE_2 model.
func (c *converter) snapshot(m *dbtModel, name string, b body) {
	var pieces []Piece
	line, col := m.at, 1
	if b.cfgAt >= 0 {
		line, col = position(m.src, b.cfgAt)
	}
	differ := func(text, why string) {
		pieces = append(pieces, Piece{File: m.rel, Line: line, Col: col, Text: text, Reason: "snapshot " + m.name + ": " + why})
	}
	cfg := m.cfg
	keys := toList(cfg["unique_key"])
	for _, k := range keys {
		if !reColumn().MatchString(strings.TrimSpace(k)) {
			differ("unique_key="+k, "a unique_key that is an expression: efmesh's key is columns (select the expression as a column and key on it)")
			keys = nil
			break
		}
	}
	if len(keys) == 0 && cfg["unique_key"] == nil {
		differ("unique_key", "no unique_key")
	}
	vf, vt := "dbt_valid_from", "dbt_valid_to"
	if names, ok := cfg["snapshot_meta_column_names"].(map[string]any); ok {
		vf, vt = first(str(names["dbt_valid_from"]), vf), first(str(names["dbt_valid_to"]), vt)
	}
	switch strategy := strings.ToLower(str(cfg["strategy"])); strategy {
	case "check":
		if cc := cfg["check_cols"]; !strings.EqualFold(str(cc), "all") {
			differ(fmt.Sprintf("check_cols=%v", cc), "check_cols names columns: dbt opens a version only when one of them changes, efmesh's SCD_TYPE_2 when any column of the row does (select only the key and those columns, or accept the difference)")
		}
	case "timestamp":
		differ("strategy='timestamp', updated_at="+str(cfg["updated_at"]), "strategy timestamp: dbt opens a version when "+str(cfg["updated_at"])+" advances, valid from that "+str(cfg["updated_at"])+"; efmesh's SCD_TYPE_2 opens one when any column of the row changes, valid from the refresh time (strategy='check', check_cols='all' is what efmesh does)")
	default:
		differ("strategy="+strategy, "snapshot strategy efmesh has no equivalent for (check and timestamp convert)")
	}
	hard := strings.ToLower(str(cfg["hard_deletes"]))
	if hard == "" {
		hard = "ignore"
		if inv, ok := cfg["invalidate_hard_deletes"].(bool); ok && inv {
			hard = "invalidate"
		}
	}
	switch hard {
	case "invalidate":
	case "ignore":
		differ("hard_deletes='ignore'", "dbt (hard_deletes='ignore', its default) leaves the version of a key the query no longer yields open; efmesh's SCD_TYPE_2 closes it at the refresh time, as hard_deletes='invalidate' does")
	case "new_record":
		differ("hard_deletes='new_record'", "dbt adds a row marking a vanished key deleted (dbt_is_deleted); efmesh's SCD_TYPE_2 closes its version")
	default:
		differ("hard_deletes="+hard, "hard_deletes value dbt does not define")
	}
	if _, ok := cfg["dbt_valid_to_current"]; ok {
		differ("dbt_valid_to_current", "dbt's current versions carry that valid_to; efmesh's have NULL")
	}
	if users := c.metaColumnUsers(m.name); len(users) > 0 {
		differ("dbt_scd_id, dbt_updated_at", "dbt's snapshot has the columns dbt_scd_id and dbt_updated_at, efmesh's SCD_TYPE_2 does not, and "+strings.Join(users, ", ")+" read them")
	}
	var other []string
	for k := range cfg {
		if !snapshotKeys[k] && k != "materialized" {
			other = append(other, k)
		}
	}
	sort.Strings(other)
	for _, k := range other {
		if k == "pre_hook" || k == "post_hook" {
			for _, hook := range toList(cfg[k]) {
				pieces = append(pieces, Piece{File: m.rel, Line: line, Col: col, Text: k + ": " + hook, Reason: hookReason(k)})
			}
			continue
		}
		differ(fmt.Sprintf("%s=%v", k, cfg[k]), "config key efmesh has no equivalent for")
	}
	pieces = append(pieces, b.pieces...)

	kind := "SCD_TYPE_2 (key (" + strings.Join(keys, ", ") + ")"
	if len(keys) == 0 {
		kind = "SCD_TYPE_2 (key ()"
	}
	kind += ", valid_from " + ident(vf) + ", valid_to " + ident(vt) + ")"
	var h strings.Builder
	fmt.Fprintf(&h, "-- Converted from dbt snapshot %s in %s\n", m.name, filepath.ToSlash(m.rel))
	for _, p := range pieces {
		if p.File == m.rel && strings.HasPrefix(p.Reason, "snapshot ") {
			h.WriteString("-- efmesh: differs from dbt: " + oneLine(p.Text) + "\n")
		}
	}
	fmt.Fprintf(&h, "MODEL (\n  name %s,\n  kind %s", name, kind)
	if tags := toList(cfg["tags"]); len(tags) > 0 {
		for i := range tags {
			tags[i] = ident(tags[i])
		}
		fmt.Fprintf(&h, ",\n  tags (%s)", strings.Join(tags, ", "))
	}
	if a := c.audits[name]; len(a) > 0 {
		fmt.Fprintf(&h, ",\n  audits (%s)", strings.Join(a, ", "))
	}
	if d := c.descr[m.name]; d != "" {
		fmt.Fprintf(&h, ",\n  description %s", sqlString(d))
	}
	h.WriteString("\n);\n\n" + b.sql + "\n")
	file := "models/_snapshots/" + ident(m.name) + ".sql"
	c.out = append(c.out, output{path: file, text: h.String()})
	c.res.Models = append(c.res.Models, Model{Name: name, Kind: "SCD_TYPE_2", File: file, From: filepath.ToSlash(m.rel), Converted: len(pieces) == 0})
	c.res.Unconverted = append(c.res.Unconverted, pieces...)
}

// metaColumnUsers are the dbt models that ref the snapshot and name
// dbt_scd_id or dbt_updated_at.
func (c *converter) metaColumnUsers(snapshot string) []string {
	name := c.names[snapshot]
	var out []string
	for _, m := range c.models {
		if slices.Contains(c.deps[c.names[m.name]], name) && regexp.MustCompile(`(?i)\bdbt_(scd_id|updated_at)\b`).MatchString(m.src) {
			out = append(out, m.rel)
		}
	}
	return out
}
