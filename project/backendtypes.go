package project

// The words efmesh.yaml's users write after type: for the engine, the
// state store and an attached database. This file is the one place in
// project that spells them (internal/archtest keeps engine names out of
// every other file above engine/… and connect): project reads and checks
// the word, with its position, when it loads efmesh.yaml; connect turns
// the engine's word into an engine.Kind (engine.ParseKind), and a test
// there checks that the two lists agree.

// engineTypes are the words engine: type takes; the first is the default.
var engineTypes = []string{"duckdb", "postgres"}

// stateTypes are the words state: type takes; the first is the default.
var stateTypes = []string{"sqlite", "postgres"}

// EngineTypes are the words engine: type takes, the default first.
func EngineTypes() []string { return append([]string(nil), engineTypes...) }

// defaultWarehouseFile is the warehouse file of an efmesh.yaml that names
// no engine path.
const defaultWarehouseFile = "efmesh.duckdb"

// urlBackend is the one backend type (engine or state) reached by url
// rather than kept in a file at path.
const urlBackend = "postgres"

// DefaultAttachType is the type of an attach: entry that names none.
const DefaultAttachType = "duckdb"

// AttachTypes are the database types an export can write into, the
// default first.
var AttachTypes = []string{DefaultAttachType, "sqlite", "postgres", "mysql"}

// IsFile reports whether the attached database is a file, whose path is
// relative to the project root, rather than a connection string.
func (a AttachConfig) IsFile() bool {
	return a.Type == DefaultAttachType || a.Type == "sqlite"
}
