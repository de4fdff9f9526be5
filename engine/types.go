package engine

import (
	"strings"
	"unicode"
)

// Family is the comparable class of a column type for the schema contract:
// integers of any width are one family, timestamps of any precision or zone
// are one, nested types compare structurally ("list<integer>",
// "struct<a:text,b:fractional>").
type Family string

// TypeFamily classifies an engine type text such as "DECIMAL(10,2)",
// "TIMESTAMP WITH TIME ZONE", "VARCHAR[]", "STRUCT(a INT, b MAP(VARCHAR, INT))".
// Unknown types are their own family (the upper-cased base name).
func TypeFamily(typ string) Family {
	p := typeParser{s: typ}
	f := p.parse()
	return Family(f)
}

type typeParser struct {
	s   string
	pos int
}

func (p *typeParser) skipSpace() {
	for p.pos < len(p.s) && unicode.IsSpace(rune(p.s[p.pos])) {
		p.pos++
	}
}

// word reads an identifier or a double-quoted name.
func (p *typeParser) word() string {
	p.skipSpace()
	if p.pos < len(p.s) && p.s[p.pos] == '"' {
		end := p.pos + 1
		var b strings.Builder
		for end < len(p.s) {
			if p.s[end] == '"' {
				if end+1 < len(p.s) && p.s[end+1] == '"' {
					b.WriteByte('"')
					end += 2
					continue
				}
				break
			}
			b.WriteByte(p.s[end])
			end++
		}
		p.pos = end + 1
		return b.String()
	}
	start := p.pos
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			p.pos++
			continue
		}
		break
	}
	return p.s[start:p.pos]
}

func (p *typeParser) peek() byte {
	p.skipSpace()
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

// skipParens skips a balanced parenthesized group at pos.
func (p *typeParser) skipParens() {
	if p.peek() != '(' {
		return
	}
	depth := 0
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				p.pos++
				return
			}
		case '\'':
			p.pos++
			for p.pos < len(p.s) && p.s[p.pos] != '\'' {
				p.pos++
			}
		}
		p.pos++
	}
}

func (p *typeParser) parse() string {
	base := strings.ToUpper(p.word())
	var fam string
	switch base {
	case "STRUCT", "ROW":
		fam = p.structFields()
	case "MAP":
		if p.peek() == '(' {
			p.pos++
			k := p.parse()
			if p.peek() == ',' {
				p.pos++
			}
			v := p.parse()
			if p.peek() == ')' {
				p.pos++
			}
			fam = "map<" + k + "," + v + ">"
		} else {
			fam = "map"
		}
	case "UNION":
		fam = "union" + strings.TrimPrefix(p.structFields(), "struct")
	case "LIST":
		if p.peek() == '(' {
			p.pos++
			e := p.parse()
			if p.peek() == ')' {
				p.pos++
			}
			fam = "list<" + e + ">"
		} else {
			fam = "list"
		}
	default:
		// Multi-word names: DOUBLE PRECISION, TIMESTAMP WITH TIME ZONE,
		// CHARACTER VARYING, TIME WITHOUT TIME ZONE.
		for {
			save := p.pos
			w := strings.ToUpper(p.word())
			switch w {
			case "PRECISION", "VARYING", "WITH", "WITHOUT", "TIME", "ZONE", "LOCAL":
				base += " " + w
				continue
			}
			p.pos = save
			break
		}
		p.skipParens()
		fam = scalarFamily(base)
	}
	// Array suffixes: INT[], INT[3], INT[][].
	for p.peek() == '[' {
		for p.pos < len(p.s) && p.s[p.pos] != ']' {
			p.pos++
		}
		p.pos++
		fam = "list<" + fam + ">"
	}
	return fam
}

func (p *typeParser) structFields() string {
	if p.peek() != '(' {
		return "struct"
	}
	p.pos++
	var parts []string
	for {
		if c := p.peek(); c == ')' || c == 0 {
			p.pos++
			break
		}
		name := strings.ToLower(p.word())
		f := p.parse()
		parts = append(parts, name+":"+f)
		if p.peek() == ',' {
			p.pos++
			continue
		}
		if p.peek() == ')' {
			p.pos++
		}
		break
	}
	return "struct<" + strings.Join(parts, ",") + ">"
}

func scalarFamily(base string) string {
	switch base {
	case "BOOLEAN", "BOOL", "LOGICAL":
		return "boolean"
	case "TINYINT", "SMALLINT", "INTEGER", "INT", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
		"UINTEGER", "UBIGINT", "UHUGEINT", "INT1", "INT2", "INT4", "INT8", "INT16", "INT32", "INT64",
		"INT128", "SHORT", "LONG", "SIGNED", "SMALLSERIAL", "SERIAL", "BIGSERIAL", "OID", "VARINT", "BIGNUM":
		return "integer"
	case "FLOAT", "FLOAT4", "FLOAT8", "REAL", "DOUBLE", "DOUBLE PRECISION", "DECIMAL", "NUMERIC", "DEC":
		return "fractional"
	case "VARCHAR", "TEXT", "STRING", "CHAR", "BPCHAR", "CHARACTER", "CHARACTER VARYING", "NVARCHAR", "NAME", "ENUM", "CITEXT":
		return "text"
	case "DATE":
		return "date"
	case "TIME", "TIMETZ", "TIME WITH TIME ZONE", "TIME WITHOUT TIME ZONE", "TIME_NS":
		return "time"
	case "TIMESTAMP", "DATETIME", "TIMESTAMPTZ", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS", "TIMESTAMP_US",
		"TIMESTAMP WITH TIME ZONE", "TIMESTAMP WITHOUT TIME ZONE":
		return "timestamp"
	case "INTERVAL":
		return "interval"
	case "BLOB", "BYTEA", "BINARY", "VARBINARY", "BIT", "BITSTRING":
		return "blob"
	case "UUID":
		return "uuid"
	case "JSON", "JSONB":
		return "json"
	case "NULL", "\"NULL\"":
		return "null"
	}
	return strings.ToLower(base)
}

// Compatible reports whether a declared family accepts an inferred one. A
// NULL-typed expression fits any declared type.
func Compatible(declared, inferred Family) bool {
	return declared == inferred || inferred == "null"
}

// StructFieldType is the type of a field of a STRUCT type text
// (STRUCT("first" VARCHAR, last INTEGER)), as written there; the field's
// name is compared without case. ok is false for another type or a field
// the struct does not have.
func StructFieldType(typ, field string) (string, bool) {
	p := &typeParser{s: typ}
	if base := strings.ToUpper(p.word()); base != "STRUCT" && base != "ROW" || p.peek() != '(' {
		return "", false
	}
	p.pos++
	for {
		if c := p.peek(); c == ')' || c == 0 {
			return "", false
		}
		name := p.word()
		if name == "" {
			return "", false
		}
		p.skipSpace()
		start := p.pos
		p.parse()
		if strings.EqualFold(name, field) {
			return strings.TrimSpace(p.s[start:p.pos]), true
		}
		if p.peek() != ',' {
			return "", false
		}
		p.pos++
	}
}

// StructFields lists the field names of a STRUCT type text, in order; nil
// for another type.
func StructFields(typ string) []string {
	p := &typeParser{s: typ}
	if base := strings.ToUpper(p.word()); base != "STRUCT" && base != "ROW" || p.peek() != '(' {
		return nil
	}
	p.pos++
	var out []string
	for {
		if c := p.peek(); c == ')' || c == 0 {
			return out
		}
		name := p.word()
		if name == "" {
			return out
		}
		out = append(out, name)
		p.parse()
		if p.peek() != ',' {
			return out
		}
		p.pos++
	}
}

// NormalTypeName makes a type text independent of spacing and case, as
// every engine reads it: "decimal( 10,2 )" and "DECIMAL(10, 2)" are one
// type. It keeps one space between two words ("DOUBLE PRECISION") and none
// elsewhere. Aliases (INT for INTEGER) are an engine's own: Scratch's
// ReportedType.
func NormalTypeName(t string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToUpper(strings.TrimSpace(t)) {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			space = true
			continue
		}
		if space && b.Len() > 0 && isTypeWord(rune(b.String()[b.Len()-1])) && isTypeWord(r) {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// isTypeWord reports whether r continues a word of a type name; a byte of
// a multi-byte character counts as one (r >= 0x80).
func isTypeWord(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 0x80
}
