package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// Definition is the stored form of a model in a snapshot.
type Definition struct {
	Name        string           `json:"name"`
	File        string           `json:"file"`
	Kind        project.Kind     `json:"kind"`
	Interval    string           `json:"interval,omitempty"` // incremental models: day | hour
	Start       string           `json:"start,omitempty"`    // the model's own start, as written
	Columns     []project.Column `json:"columns,omitempty"`
	Grain       []string         `json:"grain,omitempty"`
	Description string           `json:"description,omitempty"`
	Owner       string           `json:"owner,omitempty"`
	Tags        []string         `json:"tags,omitempty"`
	Body        string           `json:"body,omitempty"`
	// Schema is what the model yields as the checker inferred it; physics
	// reuse requires it unchanged.
	Schema []engine.Column `json:"schema,omitempty"`
	Audits []string        `json:"audits,omitempty"` // as written
	Cron   string          `json:"cron,omitempty"`
	// The declared passport (outside the fingerprint).
	Answerable string   `json:"answerable,omitempty"`
	Caveats    []string `json:"caveats,omitempty"`
	// Export (outside the fingerprint: the data does not change).
	Export *project.Export `json:"export,omitempty"`
	// Target is where the data lives when not in a table (parquet): what
	// status checks in the lake.
	Target string `json:"target,omitempty"`
	// AuditSources are the custom audit files the audits run, as applied
	// (outside the fingerprint: an edited audit rebuilds nothing, but is a
	// metadata change a plan shows). Absent in a snapshot stored before
	// efmesh recorded them: unknown, never a change.
	AuditSources []AuditSource `json:"audit_sources,omitempty"`
}

// AuditSource is one custom audit file as a snapshot recorded it.
type AuditSource struct {
	Name string `json:"name"`
	File string `json:"file"`
	// SQL is the whole file, header and query: what blocks, and what runs.
	SQL string `json:"sql"`
}

// MetadataChanges names the metadata (outside the fingerprint) that
// differs between two definitions of one snapshot.
func MetadataChanges(a, b Definition) []string {
	var out []string
	if a.Description != b.Description {
		out = append(out, "description")
	}
	if a.Owner != b.Owner {
		out = append(out, "owner")
	}
	if strings.Join(a.Tags, "\x00") != strings.Join(b.Tags, "\x00") {
		out = append(out, "tags")
	}
	if strings.Join(a.Audits, "\x00") != strings.Join(b.Audits, "\x00") {
		out = append(out, "audits")
	}
	out = append(out, auditSourceChanges(a.AuditSources, b.AuditSources)...)
	if a.Cron != b.Cron {
		out = append(out, "cron")
	}
	if a.Answerable != b.Answerable || strings.Join(a.Caveats, "\x00") != strings.Join(b.Caveats, "\x00") {
		out = append(out, "passport")
	}
	if fmt.Sprint(a.Export) != fmt.Sprint(b.Export) {
		out = append(out, "export")
	}
	return out
}

// auditSourceChanges names the audit files whose SQL differs between a
// (stored) and b, as "audit <file>". A stored definition without sources
// (written before efmesh recorded them) is unknown: no change.
func auditSourceChanges(a, b []AuditSource) []string {
	if a == nil {
		return nil
	}
	var out []string
	for _, nb := range b {
		for _, na := range a {
			if na.Name == nb.Name && na.SQL != nb.SQL {
				out = append(out, "audit "+nb.File)
			}
		}
	}
	return out
}

// AuditSourcesOf lists the custom audit files m's audits run, as a
// snapshot records them; nil when it runs none.
func AuditSourcesOf(p *project.Project, m *project.Model) []AuditSource {
	if p == nil {
		return nil
	}
	var out []AuditSource
	for _, a := range p.AuditsOf(m) {
		out = append(out, AuditSource{Name: a.Name, File: a.File, SQL: string(a.Source)})
	}
	return out
}

// DefinitionIn is DefinitionOf with the custom audit files of p that m
// runs: what a plan compares with a stored definition.
func DefinitionIn(p *project.Project, m *project.Model) Definition {
	d := DefinitionOf(m)
	d.AuditSources = AuditSourcesOf(p, m)
	return d
}

// SnapshotDefinition is the encoded definition a snapshot of info records
// in project p: info's definition with the custom audit files it runs.
// A model running none records DefinitionJSON as is.
func SnapshotDefinition(p *project.Project, info *ModelInfo) []byte {
	src := AuditSourcesOf(p, info.Model)
	if src == nil {
		return info.DefinitionJSON()
	}
	d := DefinitionOfInfo(info)
	d.AuditSources = src
	b, _ := json.Marshal(d)
	return b
}

// DefinitionOf is the definition a snapshot of m records, without the
// inferred schema.
func DefinitionOf(m *project.Model) Definition {
	d := Definition{Name: m.Name, File: m.File, Kind: m.Kind, Interval: m.Interval, Start: m.Start, Columns: m.Columns, Grain: m.Grain,
		Description: m.Description, Owner: m.Owner, Tags: m.Tags, Body: m.Body, Cron: m.Cron,
		Answerable: m.Answerable, Caveats: m.Caveats, Export: m.Export}
	if m.Target != "table" {
		d.Target = m.Target
	}
	for _, au := range m.Audits {
		d.Audits = append(d.Audits, au.Text)
	}
	return d
}

// SameDefinition reports whether stored is byte for byte the definition a
// snapshot of info would record: then nothing outside the fingerprint
// changed, and the stored one need not be decoded.
//
// p names the project whose custom audit files the snapshot records.
func SameDefinition(stored []byte, p *project.Project, info *ModelInfo) bool {
	return bytes.Equal(SnapshotDefinition(p, info), stored)
}

// DefinitionOfInfo is the definition a snapshot of an analyzed model
// records, with the schema the check inferred.
func DefinitionOfInfo(info *ModelInfo) Definition {
	d := DefinitionOf(info.Model)
	d.Schema = info.Inferred
	return d
}
