package project

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Variables: vars: {name: value} in efmesh.yaml, overridden per
// environment (environments: {dev: {vars: …}}) and on the command line
// (--var name=value), read in a body as @var(name). A body renders the
// value as a string literal, and its canonical form (the fingerprint's
// input) holds that literal: the value enters the fingerprint of exactly
// the models that use the variable.

// EffectiveVariables are the values of env: the top-level vars, then the
// environment's, then overrides (the command line's), each winning over
// the one before.
func EffectiveVariables(cfg Config, env string, overrides map[string]string) map[string]string {
	out := maps.Clone(cfg.Variables)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, cfg.Environments[env].Variables)
	for k, v := range overrides {
		out[strings.ToLower(k)] = v
	}
	return out
}

// WithVariables returns p with the variables of env and overrides in
// Config.Variables, and its unknown-variable diagnostics checked against
// them. p itself is unchanged (it may be shared).
func WithVariables(p *Project, env string, overrides map[string]string) *Project {
	vars := EffectiveVariables(p.Config, env, overrides)
	if maps.Equal(vars, p.Config.Variables) {
		if p.Config.Env == env {
			return p
		}
		c := *p
		c.Config.Env = env
		return &c
	}
	if p.reexpandFor(vars) {
		// An expansion read a variable that changes: expand again.
		np := p.assembly.assemble(vars, p)
		np.Config.Env = env
		return np
	}
	c := *p
	c.Config.Variables = vars
	c.Config.Env = env
	c.Diagnostics = slices.DeleteFunc(slices.Clone(p.Diagnostics), func(d Diagnostic) bool { return d.Code == CodeUnknownVar })
	c.Diagnostics = append(c.Diagnostics, varDiagnostics(&c)...)
	SortDiagnostics(c.Diagnostics)
	return &c
}

// VariableOrigin is the value a variable has in an environment and where
// it is set.
type VariableOrigin struct {
	Value string
	// Setting is where the value is set: "vars" (efmesh.yaml's top
	// level), "environments.<env>.vars", or "--var".
	Setting string
	// Range is the entry in efmesh.yaml; zero for --var.
	Range Range
}

// VariableSource says where the value of name comes from in env, given
// cfg as parsed (not through WithVariables) and the command line's
// overrides: the last of them to set it wins, as in EffectiveVariables.
func VariableSource(cfg Config, env, name string, overrides map[string]string) (VariableOrigin, bool) {
	name = strings.ToLower(name)
	for k, v := range overrides {
		if strings.ToLower(k) == name {
			return VariableOrigin{Value: v, Setting: "--var"}, true
		}
	}
	if e, ok := cfg.Environments[env]; ok {
		if v, ok := e.Variables[name]; ok {
			return VariableOrigin{Value: v, Setting: "environments." + env + ".vars", Range: e.VariableRanges[name]}, true
		}
	}
	if v, ok := cfg.Variables[name]; ok {
		return VariableOrigin{Value: v, Setting: "vars", Range: cfg.VariableRanges[name]}, true
	}
	return VariableOrigin{}, false
}

// ParseVarFlags reads --var name=value flags.
func ParseVarFlags(flags []string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range flags {
		k, v, ok := strings.Cut(f, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok || !ValidNamePart(k) {
			return nil, fmt.Errorf("--var %q: write name=value, the name with letters, digits and _", f)
		}
		out[k] = v
	}
	return out, nil
}

// varDiagnostics reports each @var(name) of a model or an audit whose
// variable p does not define, on the macro.
func varDiagnostics(p *Project) []Diagnostic {
	var diags []Diagnostic
	for _, m := range p.Models {
		diags = append(diags, unknownVars(p, m.File, m.Source, m.Macros)...)
	}
	return append(diags, auditVarDiagnostics(p)...)
}

// auditVarDiagnostics is varDiagnostics of the audits alone: they are
// assembled after the models.
func auditVarDiagnostics(p *Project) []Diagnostic {
	var diags []Diagnostic
	for _, a := range p.Audits {
		diags = append(diags, unknownVars(p, a.File, a.Source, a.Macros)...)
	}
	return diags
}

func unknownVars(p *Project, file string, src []byte, macros []Macro) []Diagnostic {
	var diags []Diagnostic
	for _, mc := range macros {
		if mc.Kind != MacroVar {
			continue
		}
		if _, ok := p.Config.Variables[mc.Arg]; ok {
			continue
		}
		msg := fmt.Sprintf("unknown variable %q: define it under vars in %s or pass --var %s=…", mc.Arg, ConfigFile, mc.Arg)
		d := Diagnostic{File: file, Range: RangeAt(src, mc.Start, mc.End), Severity: SeverityError, Code: CodeUnknownVar}
		if s, ok := DidYouMean(mc.Arg, slices.Sorted(maps.Keys(p.Config.Variables))); ok {
			msg += fmt.Sprintf("; did you mean %q?", s)
			d.Fixes = []Fix{{Title: "Change to " + s, Edits: []TextEdit{{File: file, Start: mc.ArgStart, End: mc.ArgEnd, NewText: s}}}}
		}
		d.Message = msg
		diags = append(diags, d)
	}
	return diags
}

// UsedVariables are the names of the variables some model or audit of p
// reads with @var, sorted.
func UsedVariables(p *Project) []string {
	seen := map[string]bool{}
	for _, m := range p.Models {
		for _, mc := range m.Macros {
			if mc.Kind == MacroVar {
				seen[mc.Arg] = true
			}
		}
	}
	for _, a := range p.Audits {
		for _, mc := range a.Macros {
			if mc.Kind == MacroVar {
				seen[mc.Arg] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// UnusedOverrides names each override (--var) that no model or audit reads
// and that efmesh.yaml does not define either: most likely a typo. Each
// comes with the closest variable that is used or defined, when one is
// close. Sorted by name.
func UnusedOverrides(p *Project, overrides map[string]string) []UnusedVar {
	used := UsedVariables(p)
	known := slices.Clone(used)
	for k := range p.Config.Variables {
		if !slices.Contains(known, k) {
			known = append(known, k)
		}
	}
	for _, e := range p.Config.Environments {
		for k := range e.Variables {
			if !slices.Contains(known, k) {
				known = append(known, k)
			}
		}
	}
	slices.Sort(known)
	var out []UnusedVar
	for _, k := range slices.Sorted(maps.Keys(overrides)) {
		k = strings.ToLower(k)
		if slices.Contains(known, k) {
			continue
		}
		u := UnusedVar{Name: k}
		u.Suggestion, _ = DidYouMean(k, known)
		out = append(out, u)
	}
	return out
}

// UnusedVar is an override no model uses (UnusedOverrides).
type UnusedVar struct {
	Name       string
	Suggestion string // "" when none is close
}

func (u UnusedVar) String() string {
	s := fmt.Sprintf("--var %s: no model uses variable %q and %s does not define it", u.Name, u.Name, ConfigFile)
	if u.Suggestion != "" {
		s += fmt.Sprintf("; did you mean %q?", u.Suggestion)
	}
	return s
}
