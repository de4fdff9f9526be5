package sqlmeshimport

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
)

// tests converts tests/**/*.yaml: sqlmesh's
//
//	name: {model, inputs: {t: [rows] | {rows: [rows]}}, outputs: {query: [rows] | {rows: [rows]}}, vars: {start, end}}
//
// becomes efmesh's name: {model, interval: [start, end), inputs: {t: [rows]}, expect: [rows]}.
// sqlmesh's end is inclusive: a date-only end steps one day forward.
func (c *converter) tests() error {
	return walk(filepath.Join(c.from, "tests"), func(path string) error {
		if !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") {
			return nil
		}
		rel := c.rel(path)
		var doc yaml.MapSlice
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := yaml.UnmarshalWithOptions(b, &doc, yaml.UseOrderedMap()); err != nil {
			if _, err := readYAML(c.from, c.shown, rel, &map[string]any{}); err != nil {
				return err
			}
			return fmt.Errorf("%s: %v", filepath.ToSlash(filepath.Join(c.shown, rel)), err)
		}
		ast := parseYAMLAST(b)
		report := func(path, text, reason string) {
			line, col := ast.pos(path)
			c.res.Unconverted = append(c.res.Unconverted, Piece{File: rel, Line: line, Col: col, Text: text, Reason: reason})
		}
		var out yaml.MapSlice
		for _, item := range doc {
			name := fmt.Sprint(item.Key)
			at := "$." + yamlKey(name)
			t, ok := item.Value.(yaml.MapSlice)
			if !ok {
				report(at, name, "a test is a mapping")
				continue
			}
			if test, ok := c.test(t, at, report); ok {
				out = append(out, yaml.MapItem{Key: name, Value: test})
			}
		}
		if len(out) == 0 {
			return nil
		}
		text, err := yaml.MarshalWithOptions(out, yaml.IndentSequence(true))
		if err != nil {
			return err
		}
		c.emit("tests/"+strings.TrimPrefix(rel, "tests/"), "# Converted from sqlmesh "+rel+"\n"+string(text))
		return nil
	})
}

// test converts one test; ok is false when it is left out (reported).
func (c *converter) test(t yaml.MapSlice, at string, report func(path, text, reason string)) (yaml.MapSlice, bool) {
	get := func(m yaml.MapSlice, k string) (any, bool) {
		for _, it := range m {
			if fmt.Sprint(it.Key) == k {
				return it.Value, true
			}
		}
		return nil, false
	}
	var out yaml.MapSlice
	model, _ := get(t, "model")
	name := strings.Join(lastParts(strings.ToLower(fmt.Sprint(model))), ".")
	if _, ok := c.models[name]; !ok {
		report(at+".model", fmt.Sprint(model), "test of a model that is not converted (a Python model, or none): left out")
		return nil, false
	}
	out = append(out, yaml.MapItem{Key: "model", Value: name})
	if d, ok := get(t, "description"); ok {
		out = append(out, yaml.MapItem{Key: "description", Value: d})
	}
	if v, has := get(t, "vars"); has {
		vars, _ := v.(yaml.MapSlice)
		var start, end string
		for _, it := range vars {
			switch k := fmt.Sprint(it.Key); k {
			case "start":
				start = fmt.Sprint(it.Value)
			case "end":
				end = fmt.Sprint(it.Value)
			default:
				report(at+".vars."+k, k, "test variable efmesh has no equivalent for (a test has an interval only)")
			}
		}
		if start != "" || end != "" {
			if start == "" {
				start = end
			}
			if end == "" {
				end = start
			}
			if d, err := time.Parse("2006-01-02", end); err == nil {
				end = d.AddDate(0, 0, 1).Format("2006-01-02")
			}
			out = append(out, yaml.MapItem{Key: "interval", Value: []string{start, end}})
		}
	}
	var inputs yaml.MapSlice
	in, _ := get(t, "inputs")
	ins, _ := in.(yaml.MapSlice)
	for _, it := range ins {
		k := fmt.Sprint(it.Key)
		n := strings.Join(lastParts(strings.ToLower(k)), ".")
		rows, good := rowsOf(it.Value)
		if !good {
			report(at+".inputs."+k, k, "input that is no rows (a query or CSV): efmesh's inputs are rows")
			continue
		}
		if _, isModel := c.models[n]; !isModel {
			if _, isExt := c.ext[n]; !isExt {
				reason := "input of a table that is no model of the converted project: left out"
				if py, isPy := c.python[n]; isPy {
					reason = "input of the Python model " + n + " (" + py + "), which awaits a human: left out"
				}
				report(at+".inputs."+yamlKey(k), k, reason)
				continue
			}
			c.extUsed[n] = true
		}
		inputs = append(inputs, yaml.MapItem{Key: n, Value: rows})
	}
	if len(inputs) > 0 {
		out = append(out, yaml.MapItem{Key: "inputs", Value: inputs})
	}
	o, _ := get(t, "outputs")
	outs, _ := o.(yaml.MapSlice)
	var expect any
	for _, it := range outs {
		switch k := fmt.Sprint(it.Key); k {
		case "query":
			rows, good := rowsOf(it.Value)
			if !good {
				report(at+".outputs.query", k, "expected output that is no rows")
				return nil, false
			}
			expect = rows
		default:
			report(at+".outputs."+k, k, "expected output efmesh has no equivalent for (a test checks the query's rows only)")
		}
	}
	if expect == nil {
		report(at, strings.TrimPrefix(at, "$."), "test without outputs.query: left out")
		return nil, false
	}
	out = append(out, yaml.MapItem{Key: "expect", Value: expect})
	return out, true
}

// yamlKey is a mapping key in a YAML path: quoted when it holds a dot.
func yamlKey(k string) string {
	if strings.ContainsAny(k, ". ") {
		return "'" + k + "'"
	}
	return k
}

// rowsOf reads rows written as a list, or as {rows: [...], partial: …}.
func rowsOf(v any) (any, bool) {
	switch v := v.(type) {
	case []any:
		return v, true
	case yaml.MapSlice:
		// partial: true (compare the named columns only) is what efmesh's
		// expectations always do.
		var rows any
		for _, it := range v {
			switch fmt.Sprint(it.Key) {
			case "rows":
				rows = it.Value
			case "partial":
			default:
				return nil, false
			}
		}
		if r, ok := rows.([]any); ok {
			return r, true
		}
	case nil:
		return []any{}, true
	}
	return nil, false
}
