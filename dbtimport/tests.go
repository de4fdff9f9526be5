package dbtimport

import (
	"fmt"
	"os"
	"strings"

	"github.com/goccy/go-yaml"
	yast "github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// auditOf is the efmesh audit of one dbt column test: unique, not_null and
// accepted_values (warn(…) with severity: warn); ok is false for any other
// test, which the caller reports.
func auditOf(col string, test any) (string, bool) {
	name, args := "", map[string]any(nil)
	switch t := test.(type) {
	case string:
		name = t
	case map[string]any:
		if len(t) != 1 {
			return "", false
		}
		for k, v := range t {
			name = k
			args, _ = v.(map[string]any)
			if v != nil && args == nil {
				return "", false
			}
		}
	default:
		return "", false
	}
	var audit string
	switch name {
	case "unique", "not_null":
		audit = name + "(" + col + ")"
	case "accepted_values":
		vals, ok := args["values"].([]any)
		if !ok || len(vals) == 0 {
			return "", false
		}
		parts := []string{col}
		for _, v := range vals {
			s, ok := v.(string)
			if !ok {
				return "", false // efmesh's accepted compares text
			}
			parts = append(parts, sqlString(s))
		}
		audit = "accepted(" + strings.Join(parts, ", ") + ")"
	default:
		return "", false
	}
	for k, v := range args {
		switch {
		case k == "values" && name == "accepted_values":
		case k == "config" || k == "severity":
			cfg, _ := v.(map[string]any)
			sev := fmt.Sprint(v)
			if cfg != nil {
				sev = fmt.Sprint(cfg["severity"])
				if len(cfg) != 1 {
					return "", false
				}
			}
			if !strings.EqualFold(sev, "warn") && !strings.EqualFold(sev, "error") {
				return "", false
			}
			if strings.EqualFold(sev, "warn") {
				audit = "warn(" + audit + ")"
			}
		default:
			return "", false // where, quote, … are not guessed
		}
	}
	return audit, true
}

// testName is how a report names a dbt test: its name, without arguments.
func testName(test any) string {
	if m, ok := test.(map[string]any); ok {
		for k := range m {
			return k
		}
	}
	return fmt.Sprint(test)
}

// yamlAST finds the position of a YAML path in a file, for reports; a file
// that does not parse gives 1:1 (it decoded already, so it does).
type yamlAST struct{ f *yast.File }

func parseYAMLAST(path string) *yamlAST {
	b, err := os.ReadFile(path)
	if err != nil {
		return &yamlAST{}
	}
	f, err := parser.ParseBytes(b, 0)
	if err != nil {
		return &yamlAST{}
	}
	return &yamlAST{f: f}
}

func (a *yamlAST) pos(path string) (line, col int) {
	if a.f == nil {
		return 1, 1
	}
	p, err := yaml.PathString(path)
	if err != nil {
		return 1, 1
	}
	n, err := p.FilterFile(a.f)
	if err != nil || n == nil {
		return 1, 1
	}
	// A mapping's own token is a colon; its first key is what a reader
	// looks for.
	switch m := n.(type) {
	case *yast.MappingNode:
		if len(m.Values) > 0 {
			n = m.Values[0].Key
		}
	case *yast.MappingValueNode:
		n = m.Key
	}
	if n.GetToken() == nil {
		return 1, 1
	}
	return n.GetToken().Position.Line, n.GetToken().Position.Column
}
