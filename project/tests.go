package project

import (
	"fmt"
	"math"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// CodeTestFile marks a problem in a unit test file.
const CodeTestFile = "test-file"

// UnitTest is one test of tests/*.yaml: a model run on fixture rows of the
// models it references, compared with expected rows.
type UnitTest struct {
	Name       string
	File       string
	Source     []byte
	NameRange  Range
	Model      string
	ModelRange Range
	// Interval is [start, end) as written; empty when not given.
	Interval [2]string
	Inputs   []TestInput
	Expect   []TestRow
	// Ordered compares rows in order instead of as a multiset.
	Ordered bool
}

// TestInput is the fixture of one referenced model.
type TestInput struct {
	Model string
	Range Range // the model name key
	Rows  []TestRow
}

// TestRow is one fixture or expected row: its values in written order.
type TestRow struct {
	Index  int // 0-based position in its list
	Range  Range
	Values []TestValue
}

// TestValue is one column value of a row. Value is nil for YAML null, else
// a string, int64, float64 or bool; an integer is exact: an int64, or
// the digits of one past int64.
type TestValue struct {
	Column string
	Value  any
	Range  Range // the key
}

var testKeys = []string{"model", "interval", "inputs", "expect", "ordered", "description"}

// ParseTests parses a unit test file: a mapping of test name to
// {model, interval?, inputs: {model: [rows]}, expect: [rows], ordered?}.
func ParseTests(file string, src []byte) (tests []*UnitTest, diags []Diagnostic) {
	p := &configParser{file: file, src: src, li: newLineIndex(src)}
	defer func() {
		if r := recover(); r != nil {
			tests = nil
			diags = append(p.diags, NewDiagnostic(file, src, 0, 0, SeverityError, CodeTestFile, fmt.Sprintf("the test file could not be parsed: %v", r)))
		}
	}()
	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		p.syntaxError(err)
		return nil, retag(p.diags, CodeTestFile)
	}
	if len(f.Docs) == 0 || f.Docs[0] == nil || isNull(unwrap(f.Docs[0].Body)) {
		return nil, nil
	}
	root := unwrap(f.Docs[0].Body)
	es, ok := entries(root)
	if !ok {
		p.errorf(root, CodeTestFile, "a test file is a mapping of test names to tests, found %s", describeNode(root))
		return nil, retag(p.diags, CodeTestFile)
	}
	for _, e := range es {
		name := keyString(e.Key)
		ks, ke := p.nodeRange(e.Key)
		t := &UnitTest{Name: name, File: file, Source: src, NameRange: p.li.rng(ks, ke)}
		hasModel := false
		p.fields(e.Value, "test "+name, testKeys, func(key string, v ast.Node) {
			switch key {
			case "model":
				if s, ok := p.str(v, "model"); ok {
					t.Model = strings.ToLower(s)
					s0, e0 := p.nodeRange(v)
					t.ModelRange = p.li.rng(s0, e0)
					hasModel = true
				}
			case "interval":
				seq, ok := unwrap(v).(*ast.SequenceNode)
				if !ok || len(seq.Values) != 2 {
					p.errorf(v, CodeTestFile, "interval must be a list of two dates [start, end)")
					return
				}
				for i, x := range seq.Values {
					if s, ok := p.str(x, "interval bound"); ok {
						t.Interval[i] = s
					}
				}
			case "inputs":
				ies, ok := entries(unwrap(v))
				if !ok {
					p.errorf(v, CodeTestFile, "inputs must map model names to lists of rows, found %s", describeNode(v))
					return
				}
				for _, ie := range ies {
					ms, me := p.nodeRange(ie.Key)
					in := TestInput{Model: strings.ToLower(keyString(ie.Key)), Range: p.li.rng(ms, me)}
					in.Rows = p.rows(unwrap(ie.Value), "inputs of "+in.Model)
					t.Inputs = append(t.Inputs, in)
				}
			case "expect":
				t.Expect = p.rows(unwrap(v), "expect")
			case "ordered":
				t.Ordered, _ = p.boolean(v, "ordered")
			}
		})
		if !hasModel {
			p.errorf(e.Key, CodeTestFile, "test %s names no model (add model: schema.table)", name)
		}
		tests = append(tests, t)
	}
	return tests, retag(p.diags, CodeTestFile)
}

// rows reads a list of flat mappings.
func (p *configParser) rows(n ast.Node, where string) []TestRow {
	if isNull(n) {
		return nil
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		p.errorf(n, CodeTestFile, "%s must be a list of rows, found %s", where, describeNode(n))
		return nil
	}
	var out []TestRow
	for i, rn := range seq.Values {
		rn = unwrap(rn)
		s, e := p.nodeRange(rn)
		row := TestRow{Index: i, Range: p.li.rng(s, e)}
		es, ok := entries(rn)
		if !ok {
			p.errorf(rn, CodeTestFile, "row %d of %s must be a mapping of column to value, found %s", i+1, where, describeNode(rn))
			continue
		}
		for _, ce := range es {
			ks, ke := p.nodeRange(ce.Key)
			tv := TestValue{Column: keyString(ce.Key), Range: p.li.rng(ks, ke)}
			switch v := unwrap(ce.Value).(type) {
			case nil, *ast.NullNode:
			case *ast.StringNode:
				tv.Value = v.Value
			case *ast.IntegerNode:
				switch x := v.Value.(type) {
				case int64:
					tv.Value = x
				case uint64:
					// The YAML reader gives a non-negative integer as
					// uint64: keep it exact (an int64, or its digits past
					// that), never a float64 that 2450815 would print as
					// 2.450815e+06 and 2^53+1 round.
					if x <= math.MaxInt64 {
						tv.Value = int64(x)
					} else {
						tv.Value = v.GetToken().Value
					}
				default:
					tv.Value = v.GetToken().Value
				}
			case *ast.FloatNode:
				tv.Value = v.Value
			case *ast.BoolNode:
				tv.Value = v.Value
			case *ast.LiteralNode:
				tv.Value = strings.TrimRight(v.Value.Value, "\n")
			default:
				p.errorf(ce.Value, CodeTestFile, "row %d of %s: column %s must be a scalar, found %s", i+1, where, tv.Column, describeNode(ce.Value))
				continue
			}
			row.Values = append(row.Values, tv)
		}
		out = append(out, row)
	}
	return out
}

func retag(ds []Diagnostic, code string) []Diagnostic {
	for i := range ds {
		if ds[i].Code == CodeConfig || ds[i].Code == CodeConfigUnknown {
			ds[i].Code = code
		}
	}
	return ds
}
