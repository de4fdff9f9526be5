package jsonapi

// The language server's own JSON: what its efmesh.* commands
// (workspace/executeCommand) answer, and the values of its progress
// reports. None carries an apiVersion: they follow this package's Version
// all the same.

// EditorPlan is what efmesh.plan answers: the plan as efmesh plan --json
// has it, with its text.
type EditorPlan struct {
	Env        string `json:"env"`        // the environment planned against
	HasChanges bool   `json:"hasChanges"` // false when applying would change nothing
	// Summary is the plan's text, as efmesh plan prints it.
	Summary string      `json:"summary"`
	Models  []ModelPlan `json:"models"` // one line per model
	// Tests are the unit tests an apply of the plan runs first, as they
	// came out now (a failing one would stop it); left out when none.
	Tests []TestResult `json:"tests,omitempty"`
}

// EditorApply is what efmesh.apply answers: what efmesh apply --json
// reports, with the plan's text.
type EditorApply struct {
	Env     string `json:"env"`     // the environment applied
	Applied bool   `json:"applied"` // false when the plan had no changes
	// PlanID is the applied plan's id; left out when nothing was applied.
	PlanID   string   `json:"planId,omitempty"`
	Built    []string `json:"built"`    // the snapshots built
	Computed []string `json:"computed"` // the models whose intervals were computed
	Promoted []string `json:"promoted"` // the models whose view now points at the plan's snapshot
	Removed  []string `json:"removed"`  // the models whose view was removed
	Exported []string `json:"exported"` // the models copied into an attached database
	// DroppedViews are the stale views of EXTERNAL models the plan listed.
	DroppedViews []string `json:"droppedViews"`
	Summary      string   `json:"summary"` // the plan's text
}

// EditorPreview is what efmesh.preview answers: efmesh show --json's
// shape, with the model.
type EditorPreview struct {
	// Model is the model previewed (or whose file holds the selection);
	// left out when none.
	Model string `json:"model,omitempty"`
	Env   string `json:"env"` // the environment read
	// Preview is true when env does not have the model: its query was run,
	// refs read from env's views.
	Preview bool `json:"preview"`
	// Selection is true when a query text (the editor's selection) was
	// run, not the model; left out otherwise.
	Selection bool     `json:"selection,omitempty"`
	Columns   []Column `json:"columns"` // the result's columns
	// Rows are the values by column, as Query's.
	Rows      [][]any `json:"rows"`
	Truncated bool    `json:"truncated"` // true when the limit cut the rows
}

// EditorTest is what efmesh.test answers: efmesh test --json's shape,
// without apiVersion.
type EditorTest struct {
	Passed int          `json:"passed"` // how many tests passed
	Failed int          `json:"failed"` // how many failed
	Tests  []TestResult `json:"tests"`  // every test run
}

// EditorLineage is what efmesh.lineage answers: a flat graph for a client
// to draw. Edges point from a source to what is computed from it.
type EditorLineage struct {
	Root  string             `json:"root"`  // the id of the node asked about
	Nodes []LineageGraphNode `json:"nodes"` // every model or column of the graph
	Edges []LineageGraphEdge `json:"edges"` // source to consumer
}

// LineageGraphNode is a model, or a column of one, in a lineage graph.
type LineageGraphNode struct {
	ID     string `json:"id"`               // model, or model.column
	Model  string `json:"model"`            // the model
	Column string `json:"column,omitempty"` // the column; left out for a model
	Type   string `json:"type,omitempty"`   // the column's type, where known
	Kind   string `json:"kind,omitempty"`   // the model's kind
	File   string `json:"file,omitempty"`   // the model's file, relative to the project root
}

// LineageGraphEdge is data flowing from one node to another.
type LineageGraphEdge struct {
	From string `json:"from"` // the source's id
	To   string `json:"to"`   // the id of what is computed from it
}

// EditorModels is what efmesh.models answers: the project's models and
// what a plan against env would do to each.
type EditorModels struct {
	Env    string        `json:"env"`    // the environment planned against
	Models []EditorModel `json:"models"` // by schema, then table
	// Problem says why no plan could be made; left out when one was.
	Problem string `json:"problem,omitempty"`
}

// EditorModel is one model of efmesh.models.
type EditorModel struct {
	Name   string `json:"name"`   // schema.table
	Schema string `json:"schema"` // the schema part of Name
	Table  string `json:"table"`  // the table part of Name
	Kind   string `json:"kind"`   // the model's kind
	URI    string `json:"uri"`    // the model file's URI
	// Change is the model's category in a plan against env; left out
	// when the plan could not be made.
	Change    string `json:"change,omitempty"`
	Build     bool   `json:"build"`               // true when the plan builds it
	Intervals int    `json:"intervals,omitempty"` // how many intervals the plan computes
}

// EditorEnvironment is one environment of what efmesh.environments
// answers (a list, the editor's current environment first when it does
// not exist yet).
type EditorEnvironment struct {
	Name    string `json:"name"`    // the environment's name
	Models  int    `json:"models"`  // how many models it points at
	Current bool   `json:"current"` // the one the editor plans against
}

// ProgressBegin is the value of the $/progress notification that starts
// a long command's report.
type ProgressBegin struct {
	Cancellable bool   `json:"cancellable"` // always false
	Kind        string `json:"kind"`        // "begin"
	Percentage  int    `json:"percentage"`  // always 0
	Title       string `json:"title"`       // what runs, e.g. "efmesh: plan dev"
}

// ProgressReport is the value of a $/progress notification while the
// command runs.
type ProgressReport struct {
	Kind       string `json:"kind"`       // "report"
	Message    string `json:"message"`    // the step running now
	Percentage int    `json:"percentage"` // 0 to 100
}

// ProgressEnd is the value of the $/progress notification that ends a
// report.
type ProgressEnd struct {
	Kind    string `json:"kind"`    // "end"
	Message string `json:"message"` // the outcome; "" when none
}
