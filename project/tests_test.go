package project

import (
	"fmt"
	"testing"
)

// TestTestValues: a fixture's scalars keep their YAML type, and an
// integer its exact value, however large (a TPC-DS date key 2450815, an
// id past 2^53), so that a cast to the column's type loses nothing.
func TestTestValues(t *testing.T) {
	tests, diags := ParseTests("tests/t.yaml", []byte(`t:
  model: m.x
  inputs:
    m.s:
      - {a: 7, b: -3, c: 2450815, d: 9007199254740993, e: 18446744073709551615, f: 1.5, g: x, h: true, i: null}
  expect: []
`))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	var got []string
	for _, v := range tests[0].Inputs[0].Rows[0].Values {
		got = append(got, fmt.Sprintf("%s=%T(%v)", v.Column, v.Value, v.Value))
	}
	want := "[a=int64(7) b=int64(-3) c=int64(2450815) d=int64(9007199254740993) e=string(18446744073709551615) f=float64(1.5) g=string(x) h=bool(true) i=<nil>(<nil>)]"
	if fmt.Sprint(got) != want {
		t.Errorf("values\n got %v\nwant %s", got, want)
	}
}
