package analysis

import (
	"reflect"
	"testing"
)

func TestClauseDiff(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		want           []ClauseChange
	}{
		{"a projection", "SELECT a, b\nFROM @ref(x.y) AS t", "SELECT a, b + 1 AS b\nFROM @ref(x.y) AS t",
			[]ClauseChange{{Clause: "SELECT", Old: "SELECT a, b", New: "SELECT a, b + 1 AS b"}}},
		{"a where clause, comments and blanks ignored", "SELECT a FROM t -- all\nWHERE a > 0;", "SELECT a\n  FROM t\n WHERE a > 1 /* more */",
			[]ClauseChange{{Clause: "WHERE", Old: "WHERE a > 0", New: "WHERE a > 1"}}},
		{"a clause added and one removed", "SELECT a FROM t ORDER BY a", "SELECT a FROM t GROUP BY ALL",
			[]ClauseChange{{Clause: "GROUP BY", New: "GROUP BY ALL"}, {Clause: "ORDER BY", Old: "ORDER BY a"}}},
		{"a union branch", "SELECT a FROM t UNION ALL SELECT a FROM u", "SELECT a FROM t UNION ALL SELECT a + 0 FROM u",
			[]ClauseChange{{Clause: "SELECT #2", Old: "SELECT a", New: "SELECT a + 0"}}},
		{"a long select list keeps the changed entries", "SELECT customer_id, first_name, last_name, email_address, signup_date, country_code, lifetime_value FROM c",
			"SELECT customer_id, first_name, last_name, lower(email_address) AS email_address, signup_date, country_code, lifetime_value FROM c",
			[]ClauseChange{{Clause: "SELECT", Old: "SELECT …, email_address, …", New: "SELECT …, lower(email_address) AS email_address, …"}}},
		{"nothing in parentheses splits", "SELECT extract(year FROM d) AS y FROM t", "SELECT extract(month FROM d) AS y FROM t",
			[]ClauseChange{{Clause: "SELECT", Old: "SELECT extract(year FROM d) AS y", New: "SELECT extract(month FROM d) AS y"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ClauseDiff(tc.old, tc.new)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
