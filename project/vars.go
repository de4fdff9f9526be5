package project

import (
	"fmt"
	"strings"
)

// VarRef is a ${NAME} (or ${NAME:-default}) in a setting of efmesh.yaml.
// It is expanded from the environment where the setting is used (package
// connect), not at load: the editor and `efmesh test` need no credentials.
// A variable that is unset there is an error at Range.
type VarRef struct {
	Setting string // "engine url", "state url"
	Name    string
	Range   Range // of "${NAME…}" in efmesh.yaml
}

// UnsetVarError is a ${NAME} without a default whose variable is not set.
type UnsetVarError struct {
	Name string
}

func (e *UnsetVarError) Error() string {
	return fmt.Sprintf("environment variable %s is not set", e.Name)
}

// ExpandVars replaces each ${NAME} of s with lookup(NAME), and each
// ${NAME:-default} with it or, when unset or empty, default. An unset
// variable without a default is an *UnsetVarError. A $ not followed by {
// is kept as is (passwords may hold one).
func ExpandVars(s string, lookup func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		ref, n, err := parseVar(s[i:])
		if err != nil {
			return "", err
		}
		v, ok := lookup(ref.name)
		switch {
		case ref.hasDefault && v == "":
			v = ref.def
		case !ok:
			return "", &UnsetVarError{Name: ref.name}
		}
		b.WriteString(v)
		s = s[i+n:]
	}
}

type varRef struct {
	name       string
	def        string
	hasDefault bool
}

// parseVar reads the ${…} at the start of s and returns it and its length.
func parseVar(s string) (varRef, int, error) {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return varRef{}, 0, fmt.Errorf("%q has no closing }", s)
	}
	inner := s[2:end]
	var r varRef
	r.name, r.def, r.hasDefault = strings.Cut(inner, ":-")
	if !validVarName(r.name) {
		return varRef{}, 0, fmt.Errorf("%q is not a variable name: write ${NAME} or ${NAME:-default}", s[:end+1])
	}
	return r, end + 1, nil
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}
