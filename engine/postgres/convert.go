package postgres

import (
	"context"
	"database/sql/driver"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/efmesh/efmesh/engine"
)

// Type names are PostgreSQL's own format_type(oid, typmod) text: "integer",
// "bigint", "numeric(10,2)", "character varying(20)", "timestamp with time
// zone", "text[]", "jsonb", a user type's (possibly schema-qualified) name.
// They are what the catalog prints, so they can be pasted back into DDL, and
// engine.TypeFamily reads them.

// typeKey is a field's type: its OID and modifier (-1 for none).
type typeKey struct {
	oid uint32
	mod int32
}

// firstNormalOID is PostgreSQL's FirstNormalObjectId: OIDs below it are
// built in and never change meaning, so their names are cached; user types
// (enums, domains, composites) are looked up every time because they can be
// dropped, renamed or recreated.
const firstNormalOID = 16384

// typeNames caches format_type results for built-in types.
type typeNames struct {
	mu    sync.Mutex
	names map[typeKey]string
}

const formatTypesSQL = `SELECT format_type(t.oid, t.mod) FROM unnest($1::oid[], $2::int4[]) WITH ORDINALITY AS t(oid, mod, n) ORDER BY t.n`

// columns names the fields' types on conn, in one round trip when any type
// is not cached.
func (d *DB) columns(ctx context.Context, conn *pgx.Conn, fields []pgconn.FieldDescription) ([]engine.Column, error) {
	cols := make([]engine.Column, len(fields))
	var missing []int
	d.types.mu.Lock()
	for i, f := range fields {
		cols[i].Name = f.Name
		if n, ok := d.types.names[typeKey{f.DataTypeOID, f.TypeModifier}]; ok {
			cols[i].Type = n
		} else {
			missing = append(missing, i)
		}
	}
	d.types.mu.Unlock()
	if len(missing) == 0 {
		return cols, nil
	}
	oids := make([]uint32, len(missing))
	mods := make([]int32, len(missing))
	for j, i := range missing {
		oids[j], mods[j] = fields[i].DataTypeOID, fields[i].TypeModifier
	}
	rows, err := conn.Query(ctx, formatTypesSQL, oids, mods)
	if err != nil {
		return nil, fmt.Errorf("postgres: type names: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[*string])
	if err != nil {
		return nil, fmt.Errorf("postgres: type names: %w", err)
	}
	if len(names) != len(missing) {
		return nil, fmt.Errorf("postgres: type names: asked for %d, got %d", len(missing), len(names))
	}
	d.types.mu.Lock()
	defer d.types.mu.Unlock()
	if d.types.names == nil {
		d.types.names = map[typeKey]string{}
	}
	for j, i := range missing {
		f := fields[i]
		name := "unknown"
		if names[j] != nil {
			name = *names[j]
		}
		cols[i].Type = name
		if f.DataTypeOID < firstNormalOID && names[j] != nil {
			d.types.names[typeKey{f.DataTypeOID, f.TypeModifier}] = name
		}
	}
	return cols, nil
}

// plainValue turns a pgx value into a plain Go value that prints and
// compares the way a reader expects: times in UTC; numeric, interval, time
// of day and ranges as PostgreSQL's text ("12.50", "1 day 02:00:00"), so no
// digit is lost; uuids as their canonical text; inet/cidr as text; arrays
// as []any of plain values. Integers, floats, booleans, strings, bytes and
// decoded JSON pass through.
func plainValue(v any) any {
	switch x := v.(type) {
	case nil, bool, string, []byte, int16, int32, int64, float32, float64,
		map[string]any:
		return v
	case time.Time:
		return x.UTC()
	case [16]byte:
		return fmt.Sprintf("%x-%x-%x-%x-%x", x[0:4], x[4:6], x[6:8], x[8:10], x[10:16])
	case netip.Prefix:
		return x.String()
	case netip.Addr:
		return x.String()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainValue(e)
		}
		return out
	case driver.Valuer:
		// pgtype.Numeric, Interval, Time, ranges: their text encoding.
		if tv, err := x.Value(); err == nil {
			return tv
		}
	case fmt.Stringer:
		// pgtype.InfinityModifier ("infinity", "-infinity").
		return x.String()
	}
	return v
}
