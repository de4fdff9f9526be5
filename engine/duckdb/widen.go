package duckdb

import (
	"strconv"
	"strings"

	"github.com/efmesh/efmesh/engine"
)

var (
	_ engine.Widener    = Dialect{}
	_ engine.TypeCaveat = Dialect{}
)

// TypeCaveat says that DuckDB keeps no length of a string type: VARCHAR(3)
// stores "abcd" as it is.
func (d Dialect) TypeCaveat(declared string) string {
	if t := d.ReportedType(declared); strings.HasPrefix(t, "VARCHAR(") || strings.HasPrefix(t, "CHAR(") ||
		strings.HasPrefix(t, "CHARACTER VARYING(") || strings.HasPrefix(t, "TEXT(") || strings.HasPrefix(t, "BPCHAR(") {
		return "DuckDB does not enforce VARCHAR lengths: " + declared + " is stored as VARCHAR, and a longer value is kept as it is"
	}
	return ""
}

// integerWidth is the bit width of DuckDB's integer types and whether
// they are signed.
var integerWidth = map[string]struct {
	bits   int
	signed bool
}{
	"TINYINT": {8, true}, "SMALLINT": {16, true}, "INTEGER": {32, true}, "BIGINT": {64, true}, "HUGEINT": {128, true},
	"UTINYINT": {8, false}, "USMALLINT": {16, false}, "UINTEGER": {32, false}, "UBIGINT": {64, false}, "UHUGEINT": {128, false},
}

// integerDigits is how many decimal digits an integer type's values need.
var integerDigits = map[int]int{8: 3, 16: 5, 32: 10, 64: 20, 128: 39}

// Widens reports whether DuckDB converts a column of type from to type to
// (ALTER COLUMN … TYPE) without changing any value: a wider integer, a
// FLOAT to DOUBLE, an integer to a floating type whose mantissa holds it,
// an integer or DECIMAL to a DECIMAL with at least as many digits on both
// sides of the point, and any VARCHAR to VARCHAR (DuckDB keeps no
// length). Everything else — a narrower type, another family, a
// DOUBLE to DECIMAL — may change or refuse a value.
func (d Dialect) Widens(from, to string) bool {
	f, t := d.ReportedType(from), d.ReportedType(to)
	if f == t {
		return true
	}
	if varchar(f) && varchar(t) {
		return true
	}
	fi, fInt := integerWidth[f]
	if ti, ok := integerWidth[t]; ok && fInt {
		switch {
		case fi.signed == ti.signed:
			return ti.bits >= fi.bits
		case !fi.signed:
			return ti.bits > fi.bits // unsigned into a wider signed type
		}
		return false
	}
	switch t {
	case "DOUBLE":
		return f == "FLOAT" || fInt && fi.bits <= 32
	case "FLOAT":
		return fInt && fi.bits <= 16
	}
	tp, ts, tDec := decimal(t)
	if !tDec {
		return false
	}
	if fInt {
		return tp-ts >= integerDigits[fi.bits]
	}
	fp, fs, fDec := decimal(f)
	return fDec && ts >= fs && tp-ts >= fp-fs
}

// varchar reports whether t is DuckDB's one string type, with or without a
// length (which DuckDB does not enforce).
func varchar(t string) bool {
	return t == "VARCHAR" || strings.HasPrefix(t, "VARCHAR(")
}

// decimal reads DECIMAL(p,s), NUMERIC(p,s) or a bare DECIMAL (DuckDB's
// DECIMAL(18,3)).
func decimal(t string) (precision, scale int, ok bool) {
	base, args, _ := strings.Cut(t, "(")
	if base != "DECIMAL" && base != "NUMERIC" {
		return 0, 0, false
	}
	if args == "" {
		return 18, 3, true
	}
	ps, sc, _ := strings.Cut(strings.TrimSuffix(args, ")"), ",")
	p, err := strconv.Atoi(strings.TrimSpace(ps))
	if err != nil {
		return 0, 0, false
	}
	s := 0
	if sc != "" {
		if s, err = strconv.Atoi(strings.TrimSpace(sc)); err != nil {
			return 0, 0, false
		}
	}
	return p, s, true
}
