package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/efmesh/efmesh/engine"
)

// TestBindRefusesAsTheServer: over a table of known columns, each query
// the server refuses, the binder refuses at the same byte with the same
// message (its first line); each query the server takes, the binder takes
// too.
func TestBindRefusesAsTheServer(t *testing.T) {
	db := open(t)
	ctx := context.Background()
	s := schema(t, db)
	decl := []string{"i int4", "s int2", "n numeric(10,2)", "r real", "t text", "v varchar(20)", "c char(3)",
		"dt date", "ts timestamp", "iv interval", "j jsonb", "ja text[]", "ia int[]", "bo bool"}
	rel := s + ".t"
	mustExec(t, db, "CREATE TABLE "+rel+" ("+strings.Join(decl, ", ")+"); CREATE TABLE "+s+".u ("+strings.Join(decl, ", ")+")")
	rels := map[string][]engine.Column{rel: cols(decl...), s + ".u": cols(decl...)}
	queries := []string{
		// Aggregates, window and set-returning functions out of place.
		"SELECT i FROM %t WHERE count(*) > 1",
		"SELECT i FROM %t WHERE sum(i) OVER () > 1",
		"SELECT i FROM %t WHERE generate_series(1, i) > 1",
		"SELECT x.i FROM %t x JOIN %u y ON max(x.i) = y.i",
		"SELECT x.i FROM %t x JOIN %u y ON rank() OVER () = y.i",
		"SELECT x.i FROM %t x JOIN %u y ON unnest(x.ia) = y.i",
		"SELECT i FROM %t GROUP BY sum(i)",
		"SELECT i FROM %t GROUP BY i, rank() OVER ()",
		"SELECT i FROM %t GROUP BY i HAVING rank() OVER () > 1",
		"SELECT i FROM %t GROUP BY i HAVING generate_series(1, 2) > 1",
		"SELECT sum(count(*)) FROM %t",
		"SELECT sum(i) FILTER (WHERE max(i) > 1) FROM %t",
		"SELECT sum(rank() OVER ()) FROM %t",
		"SELECT rank() OVER (ORDER BY row_number() OVER ()) FROM %t",
		"SELECT sum(i) OVER (PARTITION BY rank() OVER ()) FROM %t",
		"SELECT lag(row_number() OVER ()) OVER () FROM %t",
		"SELECT sum(generate_series(1, i)) FROM %t",
		"SELECT lag(unnest(ia)) OVER () FROM %t",
		"SELECT CASE WHEN bo THEN generate_series(1, i) END FROM %t",
		"SELECT CASE WHEN unnest(ia) > 1 THEN 1 END FROM %t",
		"SELECT coalesce(unnest(ia), 0) FROM %t",
		"SELECT CASE WHEN i > 1 AND unnest(ia) > 1 THEN 1 END FROM %t",
		"SELECT i > 1 OR NOT unnest(ja) > 't' FROM %t",
		"SELECT sum((unnest(ja) > 't' AND bo)::int) FROM %t",
		"SELECT CASE WHEN bo THEN sum(generate_series(1, i)) END FROM %t",
		"SELECT i FROM %t WHERE bo AND unnest(ja) > 't'",
		"SELECT count(*) FILTER (WHERE rank() OVER () > 1) FROM %t",
		"SELECT count(*) FILTER (WHERE unnest(ia) > 1) FROM %t",
		"SELECT i FROM %t WHERE i IN (SELECT count(*) FROM %u WHERE max(%u.i) > 1)",
		// The columns of a function in FROM that has fixed ones.
		"SELECT e.nope FROM %t, jsonb_each(j) e", "SELECT z.c FROM %t, ROWS FROM (unnest(ja), generate_series(1, 2)) z(a, b)",
		// Types that do not meet.
		"SELECT t + 1 FROM %t", "SELECT i - v FROM %t", "SELECT c * 2 FROM %t", "SELECT bo + 1 FROM %t", "SELECT t - t FROM %t",
		"SELECT i FROM %t WHERE t = 1", "SELECT i FROM %t WHERE i = t", "SELECT i FROM %t WHERE j ->> 'k' = 1",
		"SELECT i FROM %t WHERE dt > 5", "SELECT i FROM %t WHERE bo = 1", "SELECT i FROM %t WHERE iv < i",
		"SELECT i FROM %t WHERE i = ANY (ja)", "SELECT i FROM %t WHERE t <> ALL (ia)", "SELECT i FROM %t WHERE v != i",
		"SELECT CASE WHEN bo THEN i ELSE t END FROM %t", "SELECT CASE WHEN bo THEN t WHEN i > 1 THEN i END FROM %t",
		"SELECT CASE WHEN bo THEN i WHEN i > 1 THEN 'x' ELSE dt END FROM %t", "SELECT coalesce(i, t) FROM %t",
		"SELECT coalesce(NULL, dt, i) FROM %t", "SELECT greatest(i, t) FROM %t", "SELECT least(bo, i) FROM %t",
		"SELECT ARRAY[i, t] FROM %t", "SELECT i FROM %t UNION SELECT t FROM %u", "SELECT i, t FROM %t UNION SELECT i, i FROM %u",
		"SELECT i FROM %t INTERSECT SELECT dt FROM %u", "SELECT 1 UNION SELECT 2 UNION SELECT 'x'::text",
		"SELECT i FROM %t EXCEPT SELECT i + 1 FROM %u UNION ALL SELECT t FROM %t",
		"SELECT * FROM (VALUES (1, 'a'), (2, 3::text)) v(a, b)", "SELECT * FROM (VALUES (1), ('a'::text)) v(a)",
		// A literal no number reads.
		"SELECT 'many'::int FROM %t", "SELECT CAST('' AS bigint) FROM %t", "SELECT i + ' x '::numeric FROM %t",
		"SELECT '12'::int, ' -3 '::smallint, 'NaN'::numeric, '1e3'::numeric, '-Infinity'::numeric FROM %t",
		"SELECT DISTINCT i FROM %t ORDER BY t", "SELECT DISTINCT i, t FROM %t ORDER BY i, lower(t)", "SELECT DISTINCT x.i FROM %t x ORDER BY x.t",
		"SELECT DISTINCT i, lower(t) FROM %t ORDER BY lower(t), 1, i", "SELECT DISTINCT x.i AS k FROM %t x ORDER BY k, x.i",
		"SELECT DISTINCT i + 1 FROM %t ORDER BY i + 1", "SELECT DISTINCT * FROM %t ORDER BY i",
		// HAVING of what is not grouped; a window not defined.
		"SELECT i FROM %t GROUP BY i HAVING t = 'x'", "SELECT x.i FROM %t x GROUP BY x.i HAVING max(x.n) > 1 AND x.t <> 'a'",
		"SELECT i FROM %t GROUP BY i HAVING i > 1 AND count(t) > 0", "SELECT i FROM %t GROUP BY i, t HAVING t = 'x'",
		"SELECT i FROM %t GROUP BY lower(t), i HAVING lower(t) = 'x'", "SELECT i FROM %t GROUP BY i HAVING EXISTS (SELECT 1 FROM %u WHERE %u.i = 1)",
		"SELECT rank() OVER w FROM %t", "SELECT rank() OVER (w ORDER BY i) FROM %t WINDOW v AS (PARTITION BY t)",
		"SELECT rank() OVER w, sum(i) OVER (v ORDER BY i) FROM %t WINDOW w AS (ORDER BY i), v AS (PARTITION BY t)",
		"SELECT (SELECT max(i) OVER w FROM %u WINDOW w AS ()) FROM %t WINDOW v AS ()",
		// GROUPING of what is not grouped.
		"SELECT i, grouping(t) FROM %t GROUP BY ROLLUP (i)", "SELECT grouping(i) FROM %t",
		"SELECT i, grouping(i, t) FROM %t GROUP BY GROUPING SETS ((i), (v), ())",
		"SELECT i + 1, grouping(i) FROM %t GROUP BY i + 1", "SELECT i FROM %t GROUP BY i HAVING grouping(t) = 0",
		"SELECT x.i, grouping(x.i, y.i) FROM %t x JOIN %u y ON x.i = y.i GROUP BY CUBE (x.i, x.t)",
		"SELECT i, grouping(i), grouping(lower(t)), grouping(%t.i) FROM %t GROUP BY ROLLUP (i, lower(t))",
		"SELECT i FROM %t GROUP BY i HAVING grouping(i) = 0 ORDER BY grouping(i)",
		"SELECT i, (SELECT grouping(%t.i) FROM %u LIMIT 1) FROM %t GROUP BY i",
		// DISTINCT ON that is not the leftmost ORDER BY.
		"SELECT DISTINCT ON (i) i, t FROM %t ORDER BY t", "SELECT DISTINCT ON (i, t) i, t FROM %t ORDER BY i, v, t",
		"SELECT DISTINCT ON (x.i) x.t FROM %t x ORDER BY x.t, x.i", "SELECT DISTINCT ON (lower(t)) i FROM %t ORDER BY i",
		"SELECT DISTINCT ON (2) i, t FROM %t ORDER BY 1",
		"SELECT DISTINCT ON (i) i, t FROM %t ORDER BY i, t", "SELECT DISTINCT ON (t, i) i, t FROM %t ORDER BY i, t, v",
		"SELECT DISTINCT ON (x.i) x.i AS k, x.t FROM %t x ORDER BY k, x.t", "SELECT DISTINCT ON (lower(t)) i FROM %t ORDER BY lower(t), i",
		"SELECT DISTINCT ON (i) i FROM %t ORDER BY %t.i", "SELECT DISTINCT ON (1) i, t FROM %t ORDER BY i DESC",
		"SELECT DISTINCT ON (i) t FROM %t", "SELECT DISTINCT i, t FROM %t ORDER BY t",
		// A recursive query its union widens.
		"WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1.5 FROM r WHERE n < 3) SELECT n FROM r",
		"WITH RECURSIVE r AS (SELECT v AS p FROM %t UNION ALL SELECT p || 'x' FROM r WHERE length(p) < 3) SELECT p FROM r",
		"WITH RECURSIVE r(a, b) AS (SELECT 1, i FROM %t UNION SELECT a + 1, b * 2.0 FROM r WHERE a < 3) SELECT * FROM r",
		// Allowed.
		"WITH RECURSIVE r AS (SELECT 1 AS n, 'a' AS p UNION ALL SELECT n + 1, p || 'b' FROM r WHERE n < 3) SELECT n FROM r",
		"WITH RECURSIVE r AS (SELECT 1.5 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r",
		"WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT 2.5) SELECT n FROM r",
		"SELECT t || 1, t || i, i + 1.5, s * r, n / i, dt + 1, dt - dt, ts - iv, iv * 2, j -> 'k', j - 'k' FROM %t",
		"SELECT i FROM %t WHERE t = 'x' AND i = '1' AND dt > '2024-01-01' AND ts > dt AND v = t AND c = v AND n > i AND bo = 't'",
		"SELECT i FROM %t WHERE i = ANY (ia) AND t = ANY (ja) AND v = ANY (ja) AND i = ANY ('{1}')",
		"SELECT CASE WHEN bo THEN i ELSE n END, CASE WHEN bo THEN 'x' ELSE t END, coalesce(dt, ts), greatest(i, r), ARRAY[i, s, n] FROM %t",
		"SELECT i FROM %t UNION SELECT n FROM %u", "SELECT 'a' UNION SELECT t FROM %t", "SELECT * FROM (VALUES (1, 'a'), (2.5, NULL)) v(a, b)",
		"SELECT t FROM %t UNION SELECT v FROM %u UNION SELECT c FROM %t", "SELECT i FROM %t WHERE (i, t) = (1, 'x')",
		"SELECT count(*), sum(i) FILTER (WHERE i > 1), rank() OVER (ORDER BY sum(i)) FROM %t",
		"SELECT sum(sum(i)) OVER () FROM %t",
		"SELECT i, generate_series(1, i), unnest(ia) FROM %t",
		"SELECT i FROM %t GROUP BY i HAVING count(*) > 1 ORDER BY sum(i)",
		"SELECT i FROM %t GROUP BY i, generate_series(1, 2)",
		"SELECT i FROM %t WHERE i IN (SELECT count(*) FROM %u GROUP BY i HAVING max(i) > 1)",
		"SELECT i FROM %t WHERE EXISTS (SELECT 1 FROM %u WHERE %u.i = %t.i)",
		"SELECT (SELECT max(%t.i) FROM %u LIMIT 1) FROM %t",
		"SELECT (SELECT 1 FROM %u WHERE %u.i = max(%t.i)) FROM %t",
		"SELECT x.i FROM %t x, LATERAL generate_series(1, x.i) g JOIN %u y ON y.i = g",
		"SELECT i FROM %t, unnest(ia) AS e WHERE e > 1",
		"SELECT i FROM %t ORDER BY rank() OVER (ORDER BY i)",
		"SELECT CASE WHEN bo THEN (SELECT max(i) FROM %u) END FROM %t",
		"SELECT CASE WHEN bo THEN (SELECT generate_series(1, 2) LIMIT 1) END FROM %t",
		"SELECT count(*) FROM (SELECT generate_series(1, i) FROM %t) q",
		"SELECT ARRAY(SELECT unnest(ia)) FROM %t",
	}
	for _, q := range queries {
		q = strings.NewReplacer("%t", rel, "%u", s+".u").Replace(q)
		_, serr := db.Describe(ctx, q)
		_, berr := Parser{}.Bind(q, rels)
		var want, got *engine.SQLError
		errors.As(serr, &want)
		errors.As(berr, &got)
		switch {
		case serr != nil && want == nil:
			t.Errorf("%s: the server: %v", q, serr)
		case want == nil && berr != nil:
			t.Errorf("%s: the server takes it, the binder refuses it: %v", q, berr)
		case want != nil && got == nil:
			t.Errorf("%s: the server refuses it (%s at %s), the binder takes it", q, firstLine(want.Message), at(q, want.Position))
		case want != nil && (got.Position != want.Position || firstLine(got.Message) != firstLine(want.Message)):
			t.Errorf("%s: the binder says %q at %s; the server %q at %s", q, firstLine(got.Message), at(q, got.Position),
				firstLine(want.Message), at(q, want.Position))
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
