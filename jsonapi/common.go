package jsonapi

import "time"

// Error is what a failed command prints with --json instead of its
// payload (exit 1 unless the error says otherwise).
type Error struct {
	APIVersion int `json:"apiVersion"`
	// Error is the message efmesh prints on stderr without --json.
	Error string `json:"error"`
	// Usage is the command's usage line; present only when the command
	// line itself was wrong (a missing argument, an unknown flag).
	Usage string `json:"usage,omitempty"`
}

// Problems is what a command prints with --json when the project has
// errors (a header that does not parse, an unknown ref, a broken contract):
// every problem found, positioned; exit 1.
type Problems struct {
	APIVersion  int          `json:"apiVersion"`
	Diagnostics []Diagnostic `json:"diagnostics"` // every problem found
}

// Diagnostic is a positioned problem in a file of the project, as the
// editor shows it. Lines and columns are 1-based; columns count
// characters.
type Diagnostic struct {
	// File is the file's path relative to the project root, with slashes.
	File      string `json:"file"`
	Line      int    `json:"line"`      // the line the problem starts on
	Column    int    `json:"column"`    // the column it starts at
	EndLine   int    `json:"endLine"`   // the line it ends on
	EndColumn int    `json:"endColumn"` // the column it ends at (exclusive)
	// Severity is error, warning, info or hint.
	Severity string `json:"severity"`
	// Code names the kind of problem (e.g. unknown-ref), stable across
	// versions.
	Code    string `json:"code"`
	Message string `json:"message"` // the problem, and what to do about it
	// Fixes are the quick fixes the editor offers for the diagnostic, so
	// that a CI bot can suggest them too; present only when there are any.
	Fixes []Fix `json:"fixes,omitempty"`
	// Related are places that explain the problem (the definition of the
	// macro whose expansion it is in); present only when there are any.
	Related []Related `json:"related,omitempty"`
}

// Related is a place related to a diagnostic.
type Related struct {
	File    string `json:"file"`    // the file, relative to the project root
	Line    int    `json:"line"`    // the line
	Column  int    `json:"column"`  // the column
	Message string `json:"message"` // why the place matters
}

// Fix is a quick fix: edits to apply together.
type Fix struct {
	Title string `json:"title"` // what the fix does, as the editor offers it
	Edits []Edit `json:"edits"` // the edits, applied together
}

// Edit replaces the text of File from Start to End with NewText.
type Edit struct {
	File    string   `json:"file"`    // the file edited, relative to the project root
	Start   Position `json:"start"`   // where the replaced text starts
	End     Position `json:"end"`     // where it ends (exclusive)
	NewText string   `json:"newText"` // the text that replaces it
}

// Position is a place in a file by line and column (1-based, in
// characters, as a diagnostic's) and by byte offset (0-based). Line and
// Col are 0 when the file could not be read; Offset is always right.
type Position struct {
	Line   int `json:"line"`   // 1-based line
	Col    int `json:"col"`    // 1-based column, in characters
	Offset int `json:"offset"` // 0-based byte offset
}

// Column is a column of a relation and its type as the engine names it.
type Column struct {
	Name string `json:"name"` // the column's name
	Type string `json:"type"` // its type, as the engine names it
}

// Preview is the range of history an environment covers when it was
// applied with --start/--end: [start, end), times in RFC 3339 (UTC).
type Preview struct {
	Start string `json:"start"` // the start of the range
	// End is left out when the range is open (up to the last complete
	// interval).
	End string `json:"end,omitempty"`
}

// Warning is a finding that does not stop a plan or an apply.
type Warning struct {
	Code    string `json:"code"`    // names the kind of finding, stable across versions
	Message string `json:"message"` // the finding, one sentence
}

// TestResult is the outcome of one unit test (tests/*.yaml).
type TestResult struct {
	Name   string `json:"name"`   // the test's name
	File   string `json:"file"`   // the test's file, relative to the project root
	Model  string `json:"model"`  // the model tested
	Passed bool   `json:"passed"` // true when the model returned exactly the expected rows
	// Error says why the test could not run or compare; present only then.
	Error string `json:"error,omitempty"`
	// Columns name the values of Missing and Unexpected's rows; present
	// only when the rows differ.
	Columns []string `json:"columns,omitempty"`
	// Missing are the expected rows the model did not return.
	Missing [][]string `json:"missing,omitempty"`
	// Unexpected are the rows the model returned that were not expected.
	Unexpected [][]string `json:"unexpected,omitempty"`
}

// AuditResult is the outcome of one audit of one model.
type AuditResult struct {
	Model string `json:"model"` // the model audited
	Audit string `json:"audit"` // the audit as written in the header
	// Blocking audits stop an apply when they fail; the others warn.
	Blocking bool `json:"blocking"`
	// Scope is per_interval or whole, as the audit's wrapper says; left
	// out when the audit has no wrapper.
	Scope string `json:"scope,omitempty"`
	// Status is passed, failed (a blocking audit found violations),
	// warned (a warning found violations), error (the audit could not run)
	// or skipped.
	Status     string `json:"status"`
	Violations int64  `json:"violations"`       // the number of rows the audit's query returned
	Detail     string `json:"detail,omitempty"` // a few violating rows, as text; left out when none
	// Interval is [start, end) of the interval audited, RFC 3339; present
	// only for a per-interval audit.
	Interval []string `json:"interval,omitempty"`
	Error    string   `json:"error,omitempty"`  // why the audit could not run; present only then
	Reason   string   `json:"reason,omitempty"` // why the audit was skipped; present only then
}

// SourceFreshness is how fresh a source is, by the newest value of its
// freshness column (a model header's freshness property).
type SourceFreshness struct {
	Model  string `json:"model"`  // the source model
	Column string `json:"column"` // its freshness column
	// Latest is the newest value of Column; null when the source is empty
	// or could not be read.
	Latest     *time.Time `json:"latest"`
	Age        string     `json:"age,omitempty"`        // how old Latest is, as a duration (36h); left out when unknown
	WarnAfter  string     `json:"warnAfter,omitempty"`  // the header's warn_after; left out when none
	ErrorAfter string     `json:"errorAfter,omitempty"` // the header's error_after; left out when none
	// Status is ok, warn or error.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"` // why the source could not be read; present only then
}
