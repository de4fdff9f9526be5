package duckdb

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/efmesh/efmesh/engine"
)

var _ engine.FileValidator = (*DB)(nil)

// rejectsSeq names each validation's reject tables: the tables are
// temporary, but a database may validate several files over its life.
var rejectsSeq atomic.Int64

// ValidateFiles reads CSV files whole, exactly as ReadFiles reads them,
// with DuckDB's reject store on: every record that does not load (too many
// or too few fields, a value that does not cast to its declared type, bad
// quoting) is reported with its line instead of failing the read at the
// first one. Other formats are read whole once; their error, if any, has no
// line.
func (d *DB) ValidateFiles(ctx context.Context, spec engine.FileSpec) ([]engine.FileProblem, error) {
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return nil, convertError(err, 0)
	}
	defer conn.Close()
	if spec.Format != "csv" {
		q, err := d.ReadFiles(spec)
		if err != nil {
			return nil, err
		}
		if _, err := conn.ExecContext(ctx, "SELECT max(hash(_efmesh_r)) FROM ("+q+") AS _efmesh_r"); err != nil {
			return fileProblem(ctx, spec, err)
		}
		return nil, nil
	}
	n := rejectsSeq.Add(1)
	table, scan := fmt.Sprintf("_efmesh_rejects_%d", n), fmt.Sprintf("_efmesh_rejects_scan_%d", n)
	spec.Options = append(spec.Options[:len(spec.Options):len(spec.Options)],
		engine.FileOption{Name: "store_rejects", Value: "true"},
		engine.FileOption{Name: "rejects_table", Value: table, IsString: true},
		engine.FileOption{Name: "rejects_scan", Value: scan, IsString: true})
	q, err := d.ReadFiles(spec)
	if err != nil {
		return nil, err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS temp."+engine.QuoteIdent(table)+"; DROP TABLE IF EXISTS temp."+engine.QuoteIdent(scan))
	// Hashing each row makes the reader produce every column: a count
	// alone would let it skip the casts of columns nobody reads.
	if _, err := conn.ExecContext(ctx, "SELECT max(hash(_efmesh_r)) FROM ("+q+") AS _efmesh_r"); err != nil {
		// Not a record the store can hold: the file itself (missing,
		// unreadable, a header that names no column).
		return fileProblem(ctx, spec, err)
	}
	rows, err := conn.QueryContext(ctx, "SELECT s.file_path, r.line, coalesce(r.column_name, ''), r.error_message FROM temp."+engine.QuoteIdent(table)+
		" AS r JOIN temp."+engine.QuoteIdent(scan)+" AS s USING (scan_id, file_id) ORDER BY s.file_path, r.line, r.column_idx")
	if err != nil {
		return nil, convertError(err, 0)
	}
	defer rows.Close()
	var out []engine.FileProblem
	seen := map[engine.FileProblem]bool{}
	for rows.Next() {
		var p engine.FileProblem
		var line int64
		if err := rows.Scan(&p.Path, &line, &p.Column, &p.Message); err != nil {
			return nil, convertError(err, 0)
		}
		p.Line = int(line)
		if !seen[p] { // a reader may scan a file twice (sniffing)
			seen[p] = true
			out = append(out, p)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, convertError(err, 0)
	}
	return out, nil
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// fileProblem is err, which reading the files of spec met, as the one
// problem of the files; a read cut short by ctx is no problem of theirs
// but ctx's error, so that no caller takes it for what the files hold.
func fileProblem(ctx context.Context, spec engine.FileSpec, err error) ([]engine.FileProblem, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return []engine.FileProblem{{Path: strings.Join(spec.Paths, ", "), Message: firstLine(convertError(err, 0))}}, nil
}
