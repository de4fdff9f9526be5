package duckdb

import (
	"fmt"
	"strings"
	"time"

	"github.com/efmesh/efmesh/engine"
)

// Dialect generates DuckDB's statements: standard SQL's (engine.Standard)
// but for CREATE OR REPLACE, and the scratch catalogs the checker binds
// models in.
type Dialect struct{ engine.Standard }

var (
	_ engine.Dialect = Dialect{}
	_ engine.Scratch = Dialect{}
)

func (Dialect) Name() string            { return engine.DuckDB.String() }
func (Dialect) Kind() engine.Kind       { return engine.DuckDB }
func (Dialect) Quote(s string) string   { return engine.QuoteIdent(s) }
func (Dialect) Literal(s string) string { return engine.QuoteString(s) }
func (Dialect) QuoteRelation(r engine.Relation) string {
	return engine.QuoteIdent(r.Schema) + "." + engine.QuoteIdent(r.Name)
}

// TimestampLiteral renders t as a TIMESTAMP literal in UTC.
func (Dialect) TimestampLiteral(rfc3339 string) string {
	if t, err := time.Parse(time.RFC3339Nano, rfc3339); err == nil {
		rfc3339 = t.UTC().Format("2006-01-02 15:04:05.999999")
	}
	return "TIMESTAMP " + engine.QuoteString(rfc3339)
}

// Placeholder renders a named parameter ($start, $end, $this).
func (Dialect) Placeholder(name string) string { return "$" + name }

// MaxIdentifierLength: DuckDB keeps identifiers of any length.
func (Dialect) MaxIdentifierLength() int { return 0 }

func (Dialect) CreateSchema(schema string) string {
	return "CREATE SCHEMA IF NOT EXISTS " + engine.QuoteIdent(schema)
}

func (d Dialect) ReplaceTableAs(r engine.Relation, query string) []string {
	return []string{"CREATE OR REPLACE TABLE " + d.QuoteRelation(r) + " AS " + query}
}

func (d Dialect) ReplaceView(r engine.Relation, query string) string {
	return "CREATE OR REPLACE VIEW " + d.QuoteRelation(r) + " AS " + query
}

func (d Dialect) DropView(r engine.Relation) string {
	return "DROP VIEW IF EXISTS " + d.QuoteRelation(r)
}

func (d Dialect) DropTable(r engine.Relation) string {
	return "DROP TABLE IF EXISTS " + d.QuoteRelation(r)
}

func (Dialect) AttachScratch(catalog string) string {
	return "ATTACH ':memory:' AS " + engine.QuoteIdent(catalog)
}

func (Dialect) DropScratch(catalog string) string {
	return "DETACH DATABASE IF EXISTS " + engine.QuoteIdent(catalog)
}

func (Dialect) ScratchRelation(catalog string, r engine.Relation) string {
	return engine.QuoteIdent(catalog) + "." + engine.QuoteIdent(r.Schema) + "." + engine.QuoteIdent(r.Name)
}

func (Dialect) CreateScratchSchema(catalog, schema string) string {
	return "CREATE SCHEMA IF NOT EXISTS " + engine.QuoteIdent(catalog) + "." + engine.QuoteIdent(schema)
}

func (d Dialect) ReplaceScratchTable(catalog string, r engine.Relation, cols []engine.Column) string {
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = engine.QuoteIdent(c.Name) + " " + c.Type
	}
	return "CREATE OR REPLACE TABLE " + d.ScratchRelation(catalog, r) + " (" + strings.Join(defs, ", ") + ")"
}

func (d Dialect) DropScratchTable(catalog string, r engine.Relation) string {
	return "DROP TABLE IF EXISTS " + d.ScratchRelation(catalog, r)
}

// typeAliases maps DuckDB's type aliases to the names DESCRIBE reports.
var typeAliases = map[string]string{
	"TEXT": "VARCHAR", "STRING": "VARCHAR", "CHAR": "VARCHAR", "BPCHAR": "VARCHAR",
	"INT": "INTEGER", "INT4": "INTEGER", "SIGNED": "INTEGER", "INT8": "BIGINT", "LONG": "BIGINT",
	"INT2": "SMALLINT", "SHORT": "SMALLINT", "INT1": "TINYINT", "FLOAT4": "FLOAT", "REAL": "FLOAT",
	"FLOAT8": "DOUBLE", "DOUBLE PRECISION": "DOUBLE", "BOOL": "BOOLEAN", "LOGICAL": "BOOLEAN",
	"DATETIME": "TIMESTAMP", "TIMESTAMPTZ": "TIMESTAMP WITH TIME ZONE", "BYTEA": "BLOB", "BINARY": "BLOB",
}

func (Dialect) ReportedType(declared string) string {
	n := engine.NormalTypeName(declared)
	// A list or array of an alias is one of its type: TEXT[] is VARCHAR[].
	base, dims := n, ""
	for strings.HasSuffix(base, "]") {
		i := strings.LastIndexByte(base, '[')
		if i <= 0 {
			break
		}
		base, dims = base[:i], base[i:]+dims
	}
	if a, ok := typeAliases[base]; ok {
		return a + dims
	}
	return n
}

// MergeParquet renders a query over the parquet files at paths, matched by
// column name (a column some files lack is NULL in their rows), that
// yields every column the files have — never a fixed list, so a column a
// writer started emitting later survives. With keys, only the first row of
// each key is kept, files taken in the order of paths.
func (d *DB) MergeParquet(paths, keys []string) (string, error) {
	read, err := d.ReadFiles(engine.FileSpec{Paths: paths, Format: "parquet", Options: []engine.FileOption{
		{Name: "union_by_name", Value: "true"}, {Name: "hive_partitioning", Value: "false"},
		{Name: "filename", Value: "_efmesh_file", IsString: true}}})
	if err != nil {
		return "", err
	}
	if len(keys) == 0 {
		return "SELECT * EXCLUDE (_efmesh_file) FROM (" + read + ")", nil
	}
	quotedKeys := make([]string, len(keys))
	for i, k := range keys {
		quotedKeys[i] = engine.QuoteIdent(k)
	}
	quotedPaths := make([]string, len(paths))
	for i, p := range paths {
		quotedPaths[i] = engine.QuoteString(p)
	}
	return "SELECT * EXCLUDE (_efmesh_rn, _efmesh_file) FROM (SELECT *, row_number() OVER (PARTITION BY " + strings.Join(quotedKeys, ", ") +
		" ORDER BY list_position([" + strings.Join(quotedPaths, ", ") + "], _efmesh_file)) AS _efmesh_rn FROM (" + read + ")) WHERE _efmesh_rn = 1", nil
}

// ReadFiles renders a query over files that yields exactly the declared
// columns (cast to their declared types) when columns are given, taken by
// name: from a CSV file with a header, by the names its header line gives
// (csvHeaderGroups).
func (d *DB) ReadFiles(spec engine.FileSpec) (string, error) {
	if spec.Format == "csv" && len(spec.Columns) > 0 {
		if groups, ok := csvHeaderGroups(spec.Paths, spec.Options); ok {
			reads := make([]string, len(groups))
			for i, g := range groups {
				from, err := readFunc(engine.FileSpec{Paths: g.files, Format: "csv", Columns: csvColumnsInFileOrder(g.header, spec.Columns), Options: spec.Options})
				if err != nil {
					return "", err
				}
				reads[i] = "SELECT * FROM " + from
			}
			from := "(" + reads[0] + ")"
			if len(reads) > 1 {
				from = "(" + strings.Join(reads, " UNION ALL BY NAME ") + ")"
			}
			return selectDeclared(spec.Columns, from), nil
		}
	}
	from, err := readFunc(spec)
	if err != nil {
		return "", err
	}
	if len(spec.Columns) == 0 {
		return "SELECT * FROM " + from, nil
	}
	return selectDeclared(spec.Columns, from), nil
}

// selectDeclared selects the declared columns from from, by name, cast to
// their declared types.
func selectDeclared(cols []engine.Column, from string) string {
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = "CAST(" + engine.QuoteIdent(c.Name) + " AS " + c.Type + ") AS " + engine.QuoteIdent(c.Name)
	}
	return "SELECT " + strings.Join(sel, ", ") + " FROM " + from
}

// readFunc renders the reader call (read_parquet(…), read_csv(…), …) for
// spec; a CSV reader given columns takes them by position.
func readFunc(spec engine.FileSpec) (string, error) {
	var fn string
	args := []string{}
	if len(spec.Paths) == 1 {
		args = append(args, engine.QuoteString(spec.Paths[0]))
	} else {
		quoted := make([]string, len(spec.Paths))
		for i, p := range spec.Paths {
			quoted[i] = engine.QuoteString(p)
		}
		args = append(args, "["+strings.Join(quoted, ", ")+"]")
	}
	switch spec.Format {
	case "parquet":
		fn = "read_parquet"
	case "csv":
		fn = "read_csv"
		if len(spec.Columns) > 0 {
			cols := make([]string, len(spec.Columns))
			for i, c := range spec.Columns {
				cols[i] = engine.QuoteString(c.Name) + ": " + engine.QuoteString(c.Type)
			}
			args = append(args, "columns = {"+strings.Join(cols, ", ")+"}")
			// Declared columns make the sniffer redundant, and it is
			// slow: it reads the file again at every bind of every query
			// over the relation (100x the cost of a small table). Without
			// it the dialect is the standard one: comma, double quotes, a
			// header line — each overridable by an option.
			args = append(args, "auto_detect = false")
			if !hasOption(spec.Options, "header") {
				args = append(args, "header = true")
			}
		}
	case "json":
		fn = "read_json"
		if len(spec.Columns) > 0 {
			cols := make([]string, len(spec.Columns))
			for i, c := range spec.Columns {
				cols[i] = engine.QuoteString(c.Name) + ": " + engine.QuoteString(c.Type)
			}
			args = append(args, "columns = {"+strings.Join(cols, ", ")+"}")
		}
	default:
		return "", fmt.Errorf("duckdb: unknown file format %q (want parquet, csv or json)", spec.Format)
	}
	for _, o := range spec.Options {
		if !isIdent(o.Name) {
			return "", fmt.Errorf("duckdb: bad reader option name %q", o.Name)
		}
		v := o.Value
		if o.IsString {
			v = engine.QuoteString(v)
		} else if !isPlainValue(v) {
			return "", fmt.Errorf("duckdb: bad value %q for reader option %s", o.Value, o.Name)
		}
		args = append(args, o.Name+" = "+v)
	}
	return fn + "(" + strings.Join(args, ", ") + ")", nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// isPlainValue accepts numbers and bare words (true, false, auto).
func isPlainValue(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c == '.' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func hasOption(opts []engine.FileOption, name string) bool {
	for _, o := range opts {
		if strings.EqualFold(o.Name, name) {
			return true
		}
	}
	return false
}
