package duckdb

import "testing"

// TestStripLocations: every location member goes with its comma, string
// content that looks like one stays, and the result holds no spare
// capacity (a canonical form lives as long as its analysis).
func TestStripLocations(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"query_location":5,"b":2}`:                              `{"a":1,"b":2}`,
		`{"query_location":18446744073709551615,"b":2}`:                 `{"b":2}`,
		`{"a":1,"query_location":7}`:                                    `{"a":1}`,
		`{"s":"\"query_location\":5","query_location":-1}`:              `{"s":"\"query_location\":5"}`,
		`{"a":[{"query_location":1},{"x":1,"query_location":2,"y":3}]}`: `{"a":[{},{"x":1,"y":3}]}`,
		`{}`: `{}`,
	} {
		got := stripLocations(in)
		if string(got) != want {
			t.Errorf("stripLocations(%s) = %s, want %s", in, got, want)
		}
		if cap(got) != len(got) {
			t.Errorf("stripLocations(%s): cap %d, len %d", in, cap(got), len(got))
		}
	}
}
