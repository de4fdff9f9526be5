package jsonapi

// Payload is a whole --json document of a command: the CLI writes
// nothing else with --json (its writer takes a Payload), and only the
// types of this package are payloads.
type Payload interface {
	payload()
}

func (Plan) payload()            {}
func (Apply) payload()           {}
func (Run) payload()             {}
func (Status) payload()          {}
func (Restate) payload()         {}
func (Audit) payload()           {}
func (Test) payload()            {}
func (Lint) payload()            {}
func (LintRules) payload()       {}
func (Format) payload()          {}
func (Diff) payload()            {}
func (Passports) payload()       {}
func (Lineage) payload()         {}
func (LineageSelected) payload() {}
func (Render) payload()          {}
func (RenderSelected) payload()  {}
func (Graph) payload()           {}
func (Query) payload()           {}
func (CreateTest) payload()      {}
func (External) payload()        {}
func (EnvList) payload()         {}
func (EnvDelete) payload()       {}
func (Janitor) payload()         {}
func (Compact) payload()         {}
func (Migrate) payload()         {}
func (Schedule) payload()        {}
func (Init) payload()            {}
func (Man) payload()             {}
func (Adopt) payload()           {}
func (Corrupt) payload()         {}
func (InitDBT) payload()         {}
func (InitSQLMesh) payload()     {}
func (VersionInfo) payload()     {}
func (Problems) payload()        {}
func (Error) payload()           {}
