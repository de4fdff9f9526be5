package planner

import (
	"fmt"
	"regexp"
	"strings"

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
	if why := project.ReservedSchema(env); why != "" {
		return fmt.Errorf("invalid environment name %q: %s", env, why)
	}
	return nil
}

// PhysicalRelation names the physical relation of a model's snapshot:
// _efmesh.<schema>__<table>__<fp8>.
func PhysicalRelation(m *project.Model, fingerprint string) engine.Relation {
	return engine.Relation{Schema: PhysicalSchema, Name: m.Schema + "__" + m.Table + "__" + fingerprint[:8]}
}

// EnvRelation names the view of a model in an environment: prod lives in the
// model's own schema, other environments in <env>__<schema>.
func EnvRelation(env string, m *project.Model) engine.Relation {
	return engine.Relation{Schema: EnvSchema(env, m.Schema), Name: m.Table}
}

// EnvSchema is the schema holding env's views of models of schema.
func EnvSchema(env, schema string) string {
	if env == ProdEnv {
		return schema
	}
	return env + "__" + schema
}

func splitName(name string) (schema, table string) {
	i := strings.IndexByte(name, '.')
	if i < 0 {
		return "", name
	}
	return name[:i], name[i+1:]
}
