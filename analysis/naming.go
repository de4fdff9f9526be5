package analysis

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// PhysicalSchema holds every physical relation. It is "_efmesh", not
// "efmesh": DuckDB names the catalog of efmesh.duckdb "efmesh", and
// "efmesh.x" would be ambiguous.
const PhysicalSchema = project.PhysicalSchema

// ProdEnv is the environment whose views live in the models' own schemas.
const ProdEnv = "prod"

var envNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// ValidateEnv checks an environment name.
func ValidateEnv(env string) error {
	if !envNameRE.MatchString(env) {
		return fmt.Errorf("invalid environment name %q: use lower-case letters, digits and _ (starting with a letter)", env)
	}
	if why := project.EnvNameTooLong(env); why != "" {
		return fmt.Errorf("invalid environment name: %s", why)
	}
	if why := project.ReservedSchema(env); why != "" {
		return fmt.Errorf("invalid environment name %q: %s", env, why)
	}
	return nil
}

// PhysicalRelation names the physical relation of a model's snapshot:
// _efmesh.<schema>__<table>__<fp8>, shortened to the engine's identifier
// limit by cutting the readable part: the fingerprint suffix, which tells
// versions apart, always stays whole.
func PhysicalRelation(d engine.Dialect, m *project.Model, fingerprint string) engine.Relation {
	return engine.Relation{Schema: PhysicalSchema, Name: fitIdent(d, m.Schema+"__"+m.Table, "__"+fingerprint[:8])}
}

// EnvRelation names the view of a model in an environment: prod lives in the
// model's own schema, other environments in <env>__<schema>.
func EnvRelation(d engine.Dialect, env string, m *project.Model) engine.Relation {
	return engine.Relation{Schema: EnvSchema(d, env, m.Schema), Name: m.Table}
}

// EnvSchema is the schema holding env's views of models of schema. When
// <env>__<schema> exceeds the engine's identifier limit, its end is cut
// and a hash of the whole name appended, so two long names stay two.
func EnvSchema(d engine.Dialect, env, schema string) string {
	if env == ProdEnv {
		return schema
	}
	full := env + "__" + schema
	if IdentFits(d, full) {
		return full
	}
	h := sha256.Sum256([]byte(full))
	return fitIdent(d, full, "__"+hex.EncodeToString(h[:4]))
}

// IdentFits reports whether name fits d's identifier length limit (any
// name fits without a dialect or a limit).
func IdentFits(d engine.Dialect, name string) bool {
	limit := 0
	if d != nil {
		limit = d.MaxIdentifierLength()
	}
	return limit <= 0 || len(name) <= limit
}

// fitIdent returns readable+suffix, with readable cut so that the whole
// fits the dialect's identifier limit.
func fitIdent(d engine.Dialect, readable, suffix string) string {
	if IdentFits(d, readable+suffix) {
		return readable + suffix
	}
	cut := max(d.MaxIdentifierLength()-len(suffix), 0)
	for cut > 0 && !utf8.RuneStart(readable[cut]) {
		cut--
	}
	return strings.TrimRight(readable[:cut], "_") + suffix
}

// SplitName splits a model name "schema.table" at its first dot; a name
// without one has an empty schema.
func SplitName(name string) (schema, table string) {
	i := strings.IndexByte(name, '.')
	if i < 0 {
		return "", name
	}
	return name[:i], name[i+1:]
}

// DidYouMean is the "; did you mean …?" suffix for an unknown model name,
// by project.DidYouMean, the one rule of every suggestion.
func DidYouMean(name string, models map[string]*ModelInfo) string {
	names := make([]string, 0, len(models))
	for n := range models {
		names = append(names, n)
	}
	return suggestModel(name, names)
}

// suggestModel words the suggestion of a model name among names.
func suggestModel(name string, names []string) string {
	if s, ok := project.DidYouMean(name, names); ok {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}
