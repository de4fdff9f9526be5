package engine

import "strings"

// Kind is an engine efmesh runs models on. Above engine/… and connect,
// code never names a kind: it asks the kind's Capabilities (a Dialect
// says its Kind), so a new engine is a new constant here and an adapter,
// not a hunt for string comparisons.
type Kind uint8

// The engines efmesh supports. The zero Kind is none: a word efmesh.yaml
// may hold that ParseKind does not know.
const (
	DuckDB Kind = iota + 1
	Postgres
)

// DefaultKind is the engine of an efmesh.yaml that names none.
const DefaultKind = DuckDB

// Capabilities are the facts about an engine that the layers above ask
// instead of comparing its name.
type Capabilities struct {
	// Title is the engine's name as a sentence writes it ("DuckDB").
	Title string
	// InProcess: the engine runs inside efmesh's process on a local file
	// (or in memory). Its warehouse is a file efmesh opens and watches,
	// and unit tests and project checks run on a scratch instance of it.
	InProcess bool
	// ReadsFiles: queries can read files (seeds, EXTERNAL files, parquet
	// targets).
	ReadsFiles bool
	// SystemSchemas are the schema (or catalog) names that belong to the
	// engine rather than to the warehouse's data, lower case.
	SystemSchemas []string
	// ParquetReader is the table function a view reads parquet files
	// with, lower case; "" when the engine reads none.
	ParquetReader string
	// ExtendedSyntax: the engine's SQL has the clauses and joins beyond
	// Postgres's that DuckDB adds (QUALIFY, ASOF and POSITIONAL joins,
	// …), which completion offers.
	ExtendedSyntax bool
}

// kinds is every Kind with the word efmesh.yaml spells it with (engine
// type) and its capabilities, in the order messages list them.
var kinds = []struct {
	kind Kind
	word string
	caps Capabilities
}{
	{DuckDB, "duckdb", Capabilities{
		Title:          "DuckDB",
		InProcess:      true,
		ReadsFiles:     true,
		SystemSchemas:  []string{"information_schema", "pg_catalog", "temp", "system"},
		ParquetReader:  "read_parquet",
		ExtendedSyntax: true,
	}},
	{Postgres, "postgres", Capabilities{
		Title:         "Postgres",
		SystemSchemas: []string{"information_schema", "pg_catalog"},
	}},
}

// ParseKind reads the engine type of efmesh.yaml (any case); false for a
// word that names no engine.
func ParseKind(word string) (Kind, bool) {
	for _, k := range kinds {
		if strings.EqualFold(word, k.word) {
			return k.kind, true
		}
	}
	return 0, false
}

// KindWords are the words ParseKind knows, in order.
func KindWords() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.word
	}
	return out
}

// String is the word efmesh.yaml spells k with ("duckdb"); "" for the
// zero Kind.
func (k Kind) String() string {
	for _, e := range kinds {
		if e.kind == k {
			return e.word
		}
	}
	return ""
}

// Capabilities are k's; the zero Kind has none.
func (k Kind) Capabilities() Capabilities {
	for _, e := range kinds {
		if e.kind == k {
			c := e.caps
			c.SystemSchemas = append([]string(nil), c.SystemSchemas...)
			return c
		}
	}
	return Capabilities{}
}

// CapabilitiesOf are the capabilities of the engine d phrases statements
// for; none for a nil d.
func CapabilitiesOf(d Dialect) Capabilities {
	if d == nil {
		return Capabilities{}
	}
	return d.Kind().Capabilities()
}

// TitlesWith names the engines whose capabilities have has, joined with
// " or " ("DuckDB"): what a message says an engine lacks is had by them.
func TitlesWith(has func(Capabilities) bool) string {
	var out []string
	for _, k := range kinds {
		if has(k.caps) {
			out = append(out, k.caps.Title)
		}
	}
	return strings.Join(out, " or ")
}

// SystemSchema reports whether schema (any case) belongs to the engine
// rather than to the warehouse's data.
func (c Capabilities) SystemSchema(schema string) bool {
	for _, s := range c.SystemSchemas {
		if strings.EqualFold(s, schema) {
			return true
		}
	}
	return false
}

// ReadsParquet reports whether a view whose definition the catalog prints
// as def reads parquet files.
func (c Capabilities) ReadsParquet(def string) bool {
	return c.ParquetReader != "" && strings.Contains(strings.ToLower(def), c.ParquetReader)
}
