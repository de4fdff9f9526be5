package cli

import (
	"strings"
	"testing"
)

// TestPostgresSubqueryCapture: appending a column to a parent is
// breaking for a child whose unqualified name inside an EXISTS subquery
// now resolves to the parent's new column. Plan says so on Postgres, and
// after apply the child's table holds exactly what its own query returns.
func TestPostgresSubqueryCapture(t *testing.T) {
	dir := shopOnPostgres(t)
	writeFile(t, dir, "models/mart/named.sql", `MODEL (name mart.named, kind FULL);
SELECT customer_id, name FROM @ref(raw.customers)
`)
	writeFile(t, dir, "models/mart/north.sql", `MODEL (name mart.north, kind FULL);
SELECT c.customer_id, c.name FROM @ref(raw.customers) AS c
WHERE EXISTS (SELECT 1 FROM @ref(mart.named) AS x WHERE x.customer_id = c.customer_id AND region = 'north')
`)
	mustRun(t, dir, "apply", "dev", "--yes")
	const own = `SELECT c.customer_id, c.name FROM @ref(raw.customers) AS c
WHERE EXISTS (SELECT 1 FROM @ref(mart.named) AS x WHERE x.customer_id = c.customer_id AND region = 'north') ORDER BY 1`
	query := func(sql string) string { return mustRun(t, dir, "query", sql, "--env", "dev") }
	if got := query(`SELECT * FROM @ref(mart.north) ORDER BY 1`); got != query(own) || !strings.Contains(got, "c1,ada") || strings.Contains(got, "c2") {
		t.Fatalf("north before: %s", got)
	}
	editFile(t, dir, "models/mart/named.sql", func(s string) string {
		return strings.Replace(s, "name FROM", "name, 'south' AS region FROM", 1)
	})
	p := explained(t, dir, "--explain")
	var north string
	for _, m := range p.Models {
		if m.Name == "mart.named" && m.Change != "breaking" {
			t.Fatalf("mart.named: %s %q, want breaking", m.Change, m.Explain)
		}
		if m.Name == "mart.north" {
			north = m.Change
		}
	}
	if north != "indirect" {
		t.Fatalf("mart.north: %q, want indirect (rebuilt)", north)
	}
	if out := mustRun(t, dir, "plan", "dev", "--explain"); !strings.Contains(out, "mart.north: region now resolves to x.region") {
		t.Fatalf("plan does not say why:\n%s", out)
	}
	mustRun(t, dir, "apply", "dev", "--yes")
	// The parent's region is now 'south' for every row: the subquery
	// reads it, so the child keeps no customer.
	got := query(`SELECT * FROM @ref(mart.north) ORDER BY 1`)
	if want := query(own); got != want || strings.Contains(got, "c1") {
		t.Fatalf("north after apply:\n%s\nits own query:\n%s", got, want)
	}
}

// TestPostgresEveryTypo: the server stops at a body's first error; plan
// binds again past each one, so three typos are three positioned
// errors, each with its fix, as on DuckDB; an ambiguous and an ungrouped
// column in one body are two.
func TestPostgresEveryTypo(t *testing.T) {
	dir := shopOnPostgres(t)
	writeFile(t, dir, "models/mart/typos.sql", `MODEL (name mart.typos, kind FULL);
SELECT c.nmae, c.regoin, o.amout
FROM @ref(raw.customers) AS c JOIN @ref(raw.orders) AS o ON o.customer_id = c.customer_id
`)
	writeFile(t, dir, "models/mart/grouped.sql", `MODEL (name mart.grouped, kind FULL);
SELECT customer_id, c.region, count(*) AS n
FROM @ref(raw.customers) AS c JOIN @ref(raw.orders) AS o ON o.customer_id = c.customer_id
GROUP BY c.name
`)
	code, _, errs := run(t, dir, "plan", "dev")
	if code != ExitError {
		t.Fatalf("plan: exit %d\n%s", code, errs)
	}
	for _, want := range []string{
		`models/mart/grouped.sql:2:8: error: ambiguous column "customer_id"`,
		`models/mart/grouped.sql:2:23: error: column "region" is neither grouped nor aggregated`,
		`models/mart/typos.sql:2:10: error: unknown column "nmae"; did you mean "name"?`,
		`models/mart/typos.sql:2:18: error: unknown column "regoin"; did you mean "region"?`,
		`models/mart/typos.sql:2:28: error: unknown column "amout"; did you mean "amount"?`,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("plan lacks %q:\n%s", want, errs)
		}
	}
}
