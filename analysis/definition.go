package analysis

import (
	"bytes"
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
func SameDefinition(stored []byte, info *ModelInfo) bool {
	return bytes.Equal(info.DefinitionJSON(), stored)
}

// DefinitionOfInfo is the definition a snapshot of an analyzed model
// records, with the schema the check inferred.
func DefinitionOfInfo(info *ModelInfo) Definition {
	d := DefinitionOf(info.Model)
	d.Schema = info.Inferred
	return d
}
