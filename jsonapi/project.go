package jsonapi

import "time"

// VersionInfo is efmesh version's payload.
type VersionInfo struct {
	APIVersion int `json:"apiVersion"`
	// FingerprintVersion is the version of the fingerprint algorithm:
	// snapshots of another version need efmesh migrate.
	FingerprintVersion int `json:"fingerprintVersion"`
	// Go is the Go release efmesh was built with.
	Go string `json:"go"`
	// Version is efmesh's own version.
	Version string `json:"version"`
}

// Man is efmesh man --out DIR's payload: the man pages written.
type Man struct {
	APIVersion int `json:"apiVersion"`
	// Dir is the folder the pages were written into, as given.
	Dir string `json:"dir"`
	// Pages counts the pages written: one per command.
	Pages int `json:"pages"`
}

// Init is efmesh init's payload (a new starter project).
type Init struct {
	APIVersion int `json:"apiVersion"`
	// Files are the files written, relative to Root, with slashes; a file
	// that was already there is kept and listed too.
	Files []string `json:"files"`
	// Root is the project's folder, absolute.
	Root string `json:"root"`
}

// InitDBT is efmesh init --from-dbt's payload (exit 2 when something is
// left for a human).
type InitDBT struct {
	APIVersion int `json:"apiVersion"`
	// Files are the files written, relative to Root.
	Files []string `json:"files"`
	// From is the dbt project's folder.
	From   string          `json:"from"`
	Models []ImportedModel `json:"models"` // every dbt model and what became of it
	// Name is the new project's name.
	Name string `json:"name"`
	Root string `json:"root"` // the new project's folder
	// Unconverted are the pieces left for a human, positioned in the dbt
	// project's files.
	Unconverted []Unconverted `json:"unconverted"`
	// Vars are the dbt vars carried into efmesh.yaml; null when none.
	Vars map[string]string `json:"vars"`
}

// InitSQLMesh is efmesh init --from-sqlmesh's payload (exit 2 when
// something is left for a human).
type InitSQLMesh struct {
	APIVersion int `json:"apiVersion"`
	// Files are the files written, relative to Root.
	Files []string `json:"files"`
	// From is the sqlmesh project's folder.
	From   string          `json:"from"`
	Models []ImportedModel `json:"models"` // every sqlmesh model and what became of it
	Name   string          `json:"name"`   // the new project's name
	// Problems are what the converted project's load found.
	Problems    []Diagnostic  `json:"problems"`
	Root        string        `json:"root"`        // the new project's folder
	Unconverted []Unconverted `json:"unconverted"` // the pieces left for a human
}

// ImportedModel is one model of a dbt or sqlmesh project and what became
// of it.
type ImportedModel struct {
	Name string `json:"name"` // the model's name
	Kind string `json:"kind"` // its kind in efmesh
	// File is the efmesh model file written, relative to the new root.
	File string `json:"file"`
	// From is the file it was converted from.
	From string `json:"from"`
	// Converted is false when a piece of it was left for a human.
	Converted bool `json:"converted"`
}

// Unconverted is a piece of a dbt or sqlmesh project left for a human.
type Unconverted struct {
	File string `json:"file"` // the file, relative to the project converted
	Line int    `json:"line"` // the line
	Col  int    `json:"col"`  // the column
	// Text is the piece as written.
	Text string `json:"text"`
	// Reason says why it was not converted.
	Reason string `json:"reason"`
}

// Render is efmesh render's payload for one model.
type Render struct {
	APIVersion int `json:"apiVersion"`
	// Env is --env: refs render as its views; "" for the physical tables.
	Env   string `json:"env"`
	Model string `json:"model"` // the model rendered
	SQL   string `json:"sql"`   // its query as the engine runs it
}

// RenderSelected is efmesh render --select's payload.
type RenderSelected struct {
	APIVersion int    `json:"apiVersion"`
	Env        string `json:"env"` // --env: refs render as its views; "" for the physical tables
	// Models are the selected models, parents first.
	Models []RenderedModel `json:"models"`
}

// RenderedModel is one model's query as the engine runs it.
type RenderedModel struct {
	Model string `json:"model"` // the model
	SQL   string `json:"sql"`   // its query as the engine runs it
}

// Graph is efmesh graph's payload: the DAG.
type Graph struct {
	APIVersion int `json:"apiVersion"`
	// Edges are [parent, child] pairs.
	Edges  [][2]string `json:"edges"`
	Models []GraphNode `json:"models"` // the models drawn: all, or those named or selected
}

// GraphNode is one model of the DAG.
type GraphNode struct {
	Name    string   `json:"name"`    // the model's name
	Kind    string   `json:"kind"`    // the model's kind
	File    string   `json:"file"`    // its file, relative to the project root
	Parents []string `json:"parents"` // the models it reads
}

// Lineage is efmesh lineage's payload for one model or column.
type Lineage struct {
	APIVersion int          `json:"apiVersion"`
	Lineage    *LineageNode `json:"lineage"` // the model or column traced, with its sources
}

// LineageSelected is efmesh lineage --select's payload.
type LineageSelected struct {
	APIVersion int `json:"apiVersion"`
	// Lineages are the selected models', parents first.
	Lineages []*LineageNode `json:"lineages"`
}

// LineageNode is a model (or one of its columns) with what it is computed
// from, down to models that read no other model.
type LineageNode struct {
	Model string `json:"model"` // the model's name
	// Column is the column traced; left out for a model's lineage.
	Column string `json:"column,omitempty"`
	// Field is the field of a nested column traced; left out otherwise.
	Field   string         `json:"field,omitempty"`
	Kind    string         `json:"kind"`    // the model's kind
	File    string         `json:"file"`    // the model's file, relative to the project root
	Sources []*LineageNode `json:"sources"` // what it is computed from; empty for a raw source
}

// Passports is efmesh passport's payload.
type Passports struct {
	APIVersion int        `json:"apiVersion"`
	Env        string     `json:"env"`    // the environment
	Models     []Passport `json:"models"` // one passport per model the environment points at
}

// Passport is a model's declared and effective passport: whether its data
// answers questions in full, its caveats and its freshness.
type Passport struct {
	Model       string `json:"model"`       // the model's name
	Kind        string `json:"kind"`        // the model's kind
	Fingerprint string `json:"fingerprint"` // the version the environment points at
	// Answerable is full, sampled, partial or none, as declared.
	Answerable string   `json:"answerable"`
	Caveats    []string `json:"caveats"` // the caveats the header declares
	// Freshness is null for a model without an interval ledger.
	Freshness *Freshness        `json:"freshness"`
	Effective EffectivePassport `json:"effective"` // the passport over the model and its ancestors
}

// Freshness is what an incremental model's interval ledger says.
type Freshness struct {
	// ContiguousThrough is the end of the run of done intervals from the
	// model's start.
	ContiguousThrough time.Time `json:"contiguousThrough"`
	// LatestInterval is the end of the latest done interval; null: none.
	LatestInterval  *time.Time `json:"latestInterval"`
	FailedIntervals int        `json:"failedIntervals"` // how many intervals are marked failed
	// HasGaps reports done intervals after ContiguousThrough.
	HasGaps bool `json:"hasGaps"`
}

// EffectivePassport is a passport narrowed over the model's ancestors.
type EffectivePassport struct {
	Answerable string `json:"answerable"` // the worst answerable value over the model and its ancestors
	// AnswerableFrom names the ancestor that imposed Answerable; left out
	// when it is the model's own.
	AnswerableFrom string   `json:"answerableFrom,omitempty"`
	Caveats        []Caveat `json:"caveats"` // every caveat of the model and its ancestors
	// CompleteThrough is the earliest ContiguousThrough over the model and
	// its ancestors; null when none has a ledger.
	CompleteThrough *time.Time `json:"completeThrough"`
	// LimitedBy names the model that set CompleteThrough; left out when
	// none did.
	LimitedBy string `json:"limitedBy,omitempty"`
	HasGaps   bool   `json:"hasGaps"` // true when any of them has done intervals after a gap
}

// Caveat is one caveat with the model that declared it.
type Caveat struct {
	Model string `json:"model"` // the model that declared it
	Text  string `json:"text"`  // the caveat
}

// CreateTest is efmesh create-test's payload.
type CreateTest struct {
	APIVersion int          `json:"apiVersion"`
	DryRun     bool         `json:"dryRun"` // true with --dry-run: nothing was written
	Test       *CreatedTest `json:"test"`   // the test created
}

// CreatedTest is a unit test sampled from an environment's data.
type CreatedTest struct {
	Model string `json:"model"` // the model tested
	Test  string `json:"test"`  // the test's name
	File  string `json:"file"`  // the test file, relative to the project root
	Env   string `json:"env"`   // the environment sampled
	// Key are the columns the first parent was sampled by.
	Key    []string         `json:"key"`
	Inputs []CreatedFixture `json:"inputs"` // one fixture per parent
	// Expected is how many rows the model returns on the fixtures.
	Expected int `json:"expected"`
	// Interval is the test's [start, end) for an incremental model by
	// time range; left out otherwise.
	Interval []string `json:"interval,omitempty"`
	Written  bool     `json:"written"` // true when File was written
	// Unread is true when File matches none of efmesh.yaml's tests globs.
	Unread bool `json:"unread,omitempty"`
	// Warnings name the parents that sampled no row.
	Warnings []string `json:"warnings,omitempty"`
	// YAML is the file's text.
	YAML string `json:"yaml"`
}

// CreatedFixture is one parent's rows in a created test.
type CreatedFixture struct {
	Model string `json:"model"` // the parent
	Rows  int    `json:"rows"`  // the rows sampled
	// By are the equalities its rows were sampled by ("id = raw.o.cust");
	// left out for the first parent.
	By []string `json:"by,omitempty"`
}

// External is efmesh create-external's payload.
type External struct {
	APIVersion int               `json:"apiVersion"`
	DryRun     bool              `json:"dryRun"` // true with --dry-run: no file was written
	Models     []ExternalColumns `json:"models"` // one entry per EXTERNAL model
}

// ExternalColumns is what declaring an EXTERNAL model's columns did (or,
// dry, would do) to its header.
type ExternalColumns struct {
	Model string `json:"model"` // the model
	File  string `json:"file"`  // its file, relative to the project root
	// Columns are what the engine infers for the source, now declared.
	Columns []Column `json:"columns"`
	// Previous are the columns declared before; null when none were.
	Previous []Column `json:"previous"`
	// Changed is false when the header already declared exactly Columns.
	Changed bool `json:"changed"`
	// Header is the model's MODEL (…) header as it now reads.
	Header string `json:"header"`
}

// Test is efmesh test's payload.
type Test struct {
	APIVersion int          `json:"apiVersion"`
	Failed     int          `json:"failed"` // how many tests failed (exit 1 when any)
	Passed     int          `json:"passed"` // how many tests passed
	Tests      []TestResult `json:"tests"`  // every test run
}

// Diff is efmesh diff's payload: what differs between environments a and b.
type Diff struct {
	APIVersion int         `json:"apiVersion"`
	A          string      `json:"a"`      // the first environment
	B          string      `json:"b"`      // the second environment
	Models     []ModelDiff `json:"models"` // every model of either environment
}

// ModelDiff is one model of a diff.
type ModelDiff struct {
	Name string `json:"name"` // the model's name
	Kind string `json:"kind"` // the model's kind
	// A and B are the fingerprints each environment points at; left out
	// on the side that lacks the model.
	A string `json:"a,omitempty"`
	B string `json:"b,omitempty"` // the fingerprint B points at; left out when B lacks the model
	// Status is same, changed, only-a or only-b.
	Status string `json:"status"`
	// Data compares the rows (diff --data); left out otherwise.
	Data *DataDiff `json:"data,omitempty"`
}

// DataDiff compares the rows two environments serve for one model.
type DataDiff struct {
	RowsA int64 `json:"rowsA"` // the rows A serves
	RowsB int64 `json:"rowsB"` // the rows B serves
	// Grain is the key rows are matched on; left out when the model has
	// none (only counts and schemas are compared).
	Grain []string `json:"grain,omitempty"`
	// Matched, OnlyA and OnlyB count the keys in both, only in A, only
	// in B.
	Matched int64 `json:"matched"`
	OnlyA   int64 `json:"onlyA"` // the keys only A has
	OnlyB   int64 `json:"onlyB"` // the keys only B has
	// Columns counts, per column both sides have, the matched keys whose
	// value differs.
	Columns []ColumnDiff `json:"columns"`
	Schema  SchemaDrift  `json:"schema"` // how B's columns differ from A's
	// Sample is the percent of keys compared (--sample); left out when
	// all were.
	Sample float64  `json:"sample,omitempty"`
	Notes  []string `json:"notes,omitempty"` // what could not be compared; left out when nothing
}

// ColumnDiff is the number of matched keys whose column differs.
type ColumnDiff struct {
	Name    string `json:"name"`    // the column
	Changed int64  `json:"changed"` // the matched keys whose value of it differs
}

// SchemaDrift is how the columns of B differ from A's.
type SchemaDrift struct {
	Added   []Column     `json:"added"`   // the columns B has and A lacks
	Removed []Column     `json:"removed"` // the columns A has and B lacks
	Retyped []TypeChange `json:"retyped"` // the columns whose type differs
}

// TypeChange is a column whose type differs.
type TypeChange struct {
	Name string `json:"name"` // the column
	A    string `json:"a"`    // its type in A
	B    string `json:"b"`    // its type in B
}

// Query is the payload of efmesh query and efmesh show with --format json.
type Query struct {
	APIVersion int      `json:"apiVersion"`
	Columns    []Column `json:"columns"` // the result's columns
	Env        string   `json:"env"`     // the environment read
	// Model is the model shown; left out for efmesh query.
	Model string `json:"model,omitempty"`
	// Preview is true when env does not have the model and its query was
	// run instead.
	Preview bool `json:"preview"`
	// Rows are the values by column: times in RFC 3339 (UTC), bytes in
	// hex, other values as JSON writes them.
	Rows [][]any `json:"rows"`
	// Truncated is true when --limit cut the rows.
	Truncated bool `json:"truncated"`
}

// Lint is efmesh lint's payload.
type Lint struct {
	APIVersion int `json:"apiVersion"`
	// Diagnostics are the project's errors that stopped the lint (then
	// Findings is empty, exit 1).
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Errors counts the findings of severity error (exit 1 when any).
	Errors   int       `json:"errors"`
	Findings []Finding `json:"findings"` // the rules broken, one finding each
}

// Finding is a rule a model breaks.
type Finding struct {
	File      string `json:"file"`      // the model's file, relative to the project root
	Line      int    `json:"line"`      // the line the finding starts on
	Column    int    `json:"column"`    // the column it starts at
	EndLine   int    `json:"endLine"`   // the line it ends on
	EndColumn int    `json:"endColumn"` // the column it ends at (exclusive)
	Severity  string `json:"severity"`  // error, warning, info or hint
	// Code is the rule's id.
	Code    string `json:"code"`
	Message string `json:"message"` // what is wrong
	Fixes   []Fix  `json:"fixes"`   // the quick fixes, an empty list when none
}

// LintRules is efmesh lint --rules's payload.
type LintRules struct {
	APIVersion int        `json:"apiVersion"`
	Rules      []LintRule `json:"rules"` // every rule, in the order lint checks them
}

// LintRule is one rule of the linter.
type LintRule struct {
	ID string `json:"id"` // the rule's id, as findings and efmesh.yaml name it
	// Severity is the rule's default as efmesh.yaml's lint section
	// writes it: error, warn, info or off.
	Severity string `json:"severity"`
	Doc      string `json:"doc"` // what the rule finds
}

// Format is efmesh format's payload.
type Format struct {
	APIVersion int  `json:"apiVersion"`
	Check      bool `json:"check"` // true with --check: nothing was written
	// Files are the files that changed, would change or were left alone.
	Files []FormattedFile `json:"files"`
	// Models counts the files looked at.
	Models int `json:"models"`
}

// FormattedFile is what formatting did, or would do, to one file.
type FormattedFile struct {
	// File is relative to the project root, with slashes.
	File  string `json:"file"`
	Model string `json:"model,omitempty"` // a model file's model; left out for an audit file
	Audit string `json:"audit,omitempty"` // an audit file's audit; left out for a model file
	// Changed is true when the canonical layout differs from the file.
	Changed bool `json:"changed"`
	Written bool `json:"written"` // true when the file was rewritten
	// Problem says why the file was left alone (the layout would change
	// the fingerprint, or the file does not load).
	Problem string `json:"problem,omitempty"`
	// Skipped says why a named file is not formatted at all.
	Skipped string `json:"skipped,omitempty"`
}
