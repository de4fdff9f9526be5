package postgres

import (
	"strconv"
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/efmesh/efmesh/engine"
)

// The binder's types: best-effort result types of expressions, in
// format_type's spelling (see convert.go), for what a model body commonly
// computes. Anything not covered is "" (unknown), never a guess.

func constType(c *pg_query.A_Const) string {
	if c.Isnull {
		return typUnknown
	}
	switch v := c.Val.(type) {
	case *pg_query.A_Const_Ival:
		return "integer"
	case *pg_query.A_Const_Fval:
		// The scanner makes an integer too big for int4 a Float; the
		// parser then types it bigint when it fits int8.
		if _, err := strconv.ParseInt(v.Fval.GetFval(), 0, 64); err == nil {
			return "bigint"
		}
		return "numeric"
	case *pg_query.A_Const_Boolval:
		return "boolean"
	case *pg_query.A_Const_Sval:
		return typUnknown
	case *pg_query.A_Const_Bsval:
		return `"bit"` // format_type quotes bit without a length
	}
	return ""
}

// formatType renders a type name as format_type prints it.
func formatType(tn *pg_query.TypeName) string {
	if tn == nil || len(tn.Names) == 0 || tn.PctType {
		return ""
	}
	var parts []string
	for _, n := range tn.Names {
		parts = append(parts, n.GetString_().GetSval())
	}
	if len(parts) == 2 && parts[0] == "pg_catalog" {
		parts = parts[1:]
	}
	var mods []string
	for _, m := range tn.Typmods {
		if iv, ok := m.GetAConst().GetVal().(*pg_query.A_Const_Ival); ok {
			mods = append(mods, strconv.Itoa(int(iv.Ival.GetIval())))
		} else {
			mods = nil
			break
		}
	}
	paren := ""
	if len(mods) > 0 {
		paren = "(" + strings.Join(mods, ",") + ")"
	}
	var s string
	if len(parts) == 1 {
		switch parts[0] {
		case "int2":
			s = "smallint"
		case "int4":
			s = "integer"
		case "int8":
			s = "bigint"
		case "float4":
			s = "real"
		case "float8":
			s = "double precision"
		case "bool":
			s = "boolean"
		case "numeric":
			// numeric(p) is numeric(p,0): its scale defaults to 0.
			if len(mods) == 1 {
				paren = "(" + mods[0] + ",0)"
			}
			s = "numeric" + paren
		case "char":
			s = `"char"` // the one-byte type, not character (bpchar)
		case "bit":
			// bit without a length is quoted: unquoted, bit is bit(1).
			s = `"bit"`
			if paren != "" {
				s = "bit" + paren
			}
		case "varchar":
			s = "character varying" + paren
		case "bpchar":
			s = "bpchar"
			if paren != "" {
				s = "character" + paren
			}
		case "varbit":
			s = "bit varying" + paren
		case "timestamp":
			s = "timestamp" + paren + " without time zone"
		case "timestamptz":
			s = "timestamp" + paren + " with time zone"
		case "time":
			s = "time" + paren + " without time zone"
		case "timetz":
			s = "time" + paren + " with time zone"
		case "interval":
			s = "interval" + intervalMods(mods)
		case "serial":
			s = "integer" // the serial types are integers with a default
		case "bigserial":
			s = "bigint"
		case "smallserial":
			s = "smallint"
		default:
			s = quoteTypeName(parts[0]) + paren
		}
	} else {
		for i := range parts {
			parts[i] = quoteTypeName(parts[i])
		}
		s = strings.Join(parts, ".") + paren
	}
	if len(tn.ArrayBounds) > 0 {
		s += "[]"
	}
	return s
}

// declaredTypes memoizes declaredType.
var declaredTypes sync.Map

// declaredType is a relation column's type as written ("VARCHAR",
// "DECIMAL(15, 2)", "int4") in format_type's spelling ("character
// varying", "numeric(15,2)", "integer"): what a table built with that
// type reports. A type pg_query does not parse passes through.
func declaredType(t string) string {
	if t == "" {
		return t
	}
	if v, ok := declaredTypes.Load(t); ok {
		return v.(string)
	}
	out := t
	if tree, err := pg_query.Parse("SELECT NULL::" + t); err == nil && len(tree.Stmts) == 1 {
		if sel := tree.Stmts[0].GetStmt().GetSelectStmt(); sel != nil && len(sel.TargetList) == 1 {
			if tc := sel.TargetList[0].GetResTarget().GetVal().GetTypeCast(); tc != nil {
				if f := formatType(tc.TypeName); f != "" {
					out = f
				}
			}
		}
	}
	declaredTypes.Store(t, out)
	return out
}

func quoteTypeName(s string) string {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '$')) {
			return engine.QuoteIdent(s)
		}
	}
	return s
}

func sqlValueName(op pg_query.SQLValueFunctionOp) string {
	switch op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return "current_date"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		return "current_time"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return "current_timestamp"
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		return "localtime"
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return "localtimestamp"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return "current_role"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER:
		return "current_user"
	case pg_query.SQLValueFunctionOp_SVFOP_USER:
		return "user"
	case pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return "session_user"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return "current_catalog"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return "current_schema"
	}
	return ""
}

func sqlValueType(f *pg_query.SQLValueFunction) string {
	p := ""
	if f.Typmod >= 0 {
		p = "(" + strconv.Itoa(int(f.Typmod)) + ")"
	}
	switch f.Op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return "date"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		return "time" + p + " with time zone"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME:
		return "time with time zone"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return "timestamp" + p + " with time zone"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP:
		return "timestamp with time zone"
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		return "time" + p + " without time zone"
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME:
		return "time without time zone"
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return "timestamp" + p + " without time zone"
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP:
		return "timestamp without time zone"
	}
	return "name"
}

// canonType maps a type's spellings ("int", "INT4", "varchar(20)",
// "TIMESTAMPTZ") to PostgreSQL's name for the base type, without
// modifiers; typUnknown and "" pass through.
func canonType(t string) string {
	if t == "" || t == typUnknown {
		return t
	}
	s := strings.ToLower(strings.TrimSpace(t))
	if strings.HasSuffix(s, "[]") {
		return canonType(strings.TrimSuffix(s, "[]")) + "[]"
	}
	for {
		i := strings.IndexByte(s, '(')
		j := strings.IndexByte(s, ')')
		if i < 0 || j < i {
			break
		}
		s = s[:i] + s[j+1:]
	}
	s = strings.Join(strings.Fields(s), " ")
	switch s {
	case "int", "int4", "integer", "serial", "serial4":
		return "integer"
	case "int8", "bigint", "bigserial", "serial8":
		return "bigint"
	case "int2", "smallint", "smallserial", "serial2":
		return "smallint"
	case "numeric", "decimal":
		return "numeric"
	case "float8", "double precision", "float":
		return "double precision"
	case "float4", "real":
		return "real"
	case "bool", "boolean":
		return "boolean"
	case "varchar", "character varying":
		return "character varying"
	case "char", "character", "bpchar":
		return "character"
	case "timestamp", "timestamp without time zone":
		return "timestamp without time zone"
	case "timestamptz", "timestamp with time zone":
		return "timestamp with time zone"
	case "time", "time without time zone":
		return "time without time zone"
	case "timetz", "time with time zone":
		return "time with time zone"
	}
	if strings.HasPrefix(s, "interval ") {
		return "interval" // interval day, interval year to month
	}
	return s
}

var numRank = map[string]int{
	"smallint": 1, "integer": 2, "bigint": 3, "numeric": 4, "real": 5, "double precision": 6,
}

func isInt(t string) bool { r := numRank[t]; return r >= 1 && r <= 3 }

func isTimestamp(t string) bool {
	return t == "timestamp without time zone" || t == "timestamp with time zone"
}

func isText(t string) bool {
	return t == "text" || t == "character varying" || t == "character" || t == typUnknown
}

// asText is a text-like type as a function taking text reads it: varchar
// has no functions or operators of its own, bpchar has.
func asText(t string) string {
	if canonType(t) == "character varying" {
		return "text"
	}
	return t
}

// commonType is the type PostgreSQL resolves for values of types a and b
// meeting in CASE, UNION, COALESCE, VALUES or ARRAY (select_common_type),
// with the modifier select_common_typmod keeps: only where both are of the
// same type and modifier. An untyped literal or NULL (typUnknown) takes
// the other side's type without its modifier. "" when either is not known
// or the pair is not one of the common cases. Folded left to right over a
// list it is PostgreSQL's resolution: the first type stays unless a later
// one of its category is one the first converts to implicitly and not
// back.
func commonType(a, b string) string {
	switch {
	case a == "" || b == "":
		return ""
	case a == typUnknown && b == typUnknown:
		return typUnknown
	case a == typUnknown:
		return noMods(b)
	case b == typUnknown:
		return noMods(a)
	case a == b:
		return a
	}
	ca, cb := canonType(a), canonType(b)
	if ca == cb {
		return noMods(a) // modifiers that differ are dropped
	}
	if ra, rb := numRank[ca], numRank[cb]; ra > 0 && rb > 0 {
		// smallint → integer → bigint → numeric → real → double
		// precision convert implicitly upwards only.
		if ra > rb {
			return noMods(a)
		}
		return noMods(b)
	}
	switch {
	case isText(ca) && isText(cb):
		// text, varchar and bpchar convert implicitly into each other:
		// the first stays.
		return noMods(a)
	case isTimestamp(ca) && isTimestamp(cb):
		return "timestamp with time zone"
	case ca == "date" && isTimestamp(cb):
		return noMods(b)
	case cb == "date" && isTimestamp(ca):
		return noMods(a)
	}
	return ""
}

// commonOf folds commonType over types, as PostgreSQL resolves a CASE's
// results, COALESCE's or an ARRAY's elements; typUnknown for none.
func commonOf(types []string) string {
	if len(types) == 0 {
		return typUnknown
	}
	t := types[0]
	for _, u := range types[1:] {
		t = commonType(t, u)
	}
	return t
}

// noMods is type t without its modifiers, as format_type spells the type
// of a value whose modifier is lost (typmod -1): "character varying(20)"
// reads "character varying", "character(3)" reads "bpchar", "bit(3)"
// reads "bit" quoted, "numeric(10,2)[]" reads "numeric[]".
func noMods(t string) string {
	arr := ""
	for strings.HasSuffix(t, "[]") {
		t, arr = strings.TrimSuffix(t, "[]"), arr+"[]"
	}
	if strings.HasPrefix(t, "interval") {
		return "interval" + arr // its fields are its modifier too
	}
	if !strings.Contains(t, "(") {
		return t + arr
	}
	for {
		i := strings.IndexByte(t, '(')
		j := strings.IndexByte(t, ')')
		if i < 0 || j < i {
			break
		}
		t = t[:i] + t[j+1:]
	}
	t = strings.Join(strings.Fields(t), " ")
	switch t {
	case "character":
		t = "bpchar"
	case "bit":
		t = `"bit"`
	}
	return t + arr
}

func arrayOf(t string) string {
	switch t {
	case "", typUnknown:
		return ""
	}
	if strings.HasSuffix(t, "[]") {
		return t
	}
	return t + "[]"
}

// opType is the result type of a binary operator, for the common cases.
func opType(op, a, b string) string {
	switch op {
	case "=", "<>", "!=", "<", ">", "<=", ">=", "~", "~*", "!~", "!~*", "~~", "~~*", "!~~", "!~~*",
		"@>", "<@", "&&", "?", "?|", "?&", "@@", "@?":
		return "boolean"
	case "+", "-", "*", "/", "%", "^":
		return arith(op, canonType(a), canonType(b))
	case "||":
		ca, cb := canonType(a), canonType(b)
		// anycompatiblearray || anycompatible(array): the elements'
		// common type.
		ea, eb := strings.TrimSuffix(noMods(a), "[]"), strings.TrimSuffix(noMods(b), "[]")
		switch {
		case strings.HasSuffix(ca, "[]") && strings.HasSuffix(cb, "[]"), strings.HasSuffix(ca, "[]") && b != typUnknown,
			strings.HasSuffix(cb, "[]") && a != typUnknown:
			return arrayOf(commonType(ea, eb))
		case strings.HasSuffix(ca, "[]"):
			return noMods(a)
		case strings.HasSuffix(cb, "[]"):
			return noMods(b)
		case ca == "jsonb" && cb == "jsonb":
			return "jsonb"
		case isText(ca) || isText(cb):
			return "text"
		}
	case "->", "#>":
		if ca := canonType(a); ca == "json" || ca == "jsonb" {
			return ca
		}
	case "->>", "#>>":
		return "text"
	}
	return ""
}

func arith(op, a, b string) string {
	if a == typUnknown {
		a = b
	}
	if b == typUnknown {
		b = a
	}
	ra, rb := numRank[a], numRank[b]
	if ra > 0 && rb > 0 {
		switch {
		case op == "^":
			if a == "numeric" || b == "numeric" {
				return "numeric"
			}
			return "double precision"
		case a == b:
			return a
		case a == "real" || b == "real":
			return "double precision"
		case ra > rb:
			return a
		}
		return b
	}
	plusMinus := op == "+" || op == "-"
	switch {
	case a == "date" && b == "date" && op == "-":
		return "integer"
	case a == "date" && isInt(b) && plusMinus, isInt(a) && b == "date" && op == "+":
		return "date"
	case a == "date" && b == "interval" && plusMinus, a == "interval" && b == "date" && op == "+",
		a == "date" && b == "time without time zone" && op == "+", a == "time without time zone" && b == "date" && op == "+":
		return "timestamp without time zone"
	case a == "date" && b == "time with time zone" && op == "+", a == "time with time zone" && b == "date" && op == "+":
		return "timestamp with time zone"
	case (a == "time without time zone" || a == "time with time zone") && b == "interval" && plusMinus:
		return a
	case a == "time without time zone" && b == a && op == "-":
		return "interval"
	case isTimestamp(a) && b == "interval" && plusMinus:
		return a
	case a == "interval" && isTimestamp(b) && op == "+":
		return b
	case isTimestamp(a) && a == b && op == "-":
		return "interval"
	case a == "interval" && b == "interval" && plusMinus:
		return "interval"
	case a == "interval" && rb > 0 && (op == "*" || op == "/"), ra > 0 && b == "interval" && op == "*":
		return "interval"
	}
	return ""
}

// funcType is the result type of a built-in function, best effort; args
// are the argument types as bound.
func funcType(name string, args []string) string {
	arg := func(i int) string {
		if i < len(args) {
			return canonType(args[i])
		}
		return ""
	}
	// bare is argument i without its modifier: a polymorphic result's
	// type (typmod -1).
	bare := func(i int) string {
		if i < len(args) {
			return noMods(args[i])
		}
		return ""
	}
	a0 := arg(0)
	switch name {
	case "count", "row_number", "rank", "dense_rank":
		return "bigint"
	case "ntile", "length", "char_length", "character_length", "octet_length", "bit_length",
		"strpos", "position", "ascii", "array_length", "cardinality", "array_position", "array_ndims",
		"scale", "width_bucket", "num_nulls", "num_nonnulls", "jsonb_array_length", "json_array_length":
		return "integer"
	case "percent_rank", "cume_dist", "random", "pi", "date_part", "corr", "covar_pop", "covar_samp",
		"regr_slope", "regr_intercept", "regr_r2", "regr_count", "regr_avgx", "regr_avgy",
		"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "degrees", "radians":
		return "double precision"
	case "sum":
		switch a0 {
		case "smallint", "integer":
			return "bigint"
		case "bigint", "numeric":
			return "numeric"
		case "real", "double precision", "interval", "money":
			return a0
		}
	case "avg", "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop":
		switch {
		case numRank[a0] >= 1 && numRank[a0] <= 4:
			return "numeric"
		case a0 == "real" || a0 == "double precision":
			return "double precision"
		case a0 == "interval" && name == "avg":
			return "interval"
		}
	case "min", "max", "any_value", "lag", "lead", "first_value", "last_value", "nth_value", "abs":
		t := bare(0)
		if (name == "lag" || name == "lead") && len(args) == 3 {
			// lag(anycompatible, integer, anycompatible)
			t = noMods(commonType(args[0], args[2]))
		}
		if name == "min" || name == "max" {
			t = asText(t) // there is no max(varchar): it reads text
		}
		if t != typUnknown {
			return t
		}
	case "now", "transaction_timestamp", "statement_timestamp", "clock_timestamp", "to_timestamp", "make_timestamptz":
		return "timestamp with time zone"
	case "make_timestamp":
		return "timestamp without time zone"
	case "to_date", "make_date":
		return "date"
	case "age", "make_interval", "justify_days", "justify_hours", "justify_interval":
		return "interval"
	case "to_number", "extract", "trim_scale", "div":
		return "numeric"
	case "date_trunc":
		switch a1 := arg(1); {
		case a1 == "date":
			return "timestamp with time zone"
		case isTimestamp(a1) || a1 == "interval":
			return a1
		}
	case "timezone": // x AT TIME ZONE z
		switch arg(1) {
		case "timestamp with time zone":
			return "timestamp without time zone"
		case "timestamp without time zone", "date":
			return "timestamp with time zone"
		}
	case "lower", "upper", "btrim", "ltrim", "rtrim", "concat", "concat_ws", "substr", "substring",
		"replace", "left", "right", "md5", "initcap", "string_agg", "lpad", "rpad", "repeat", "reverse",
		"to_char", "format", "split_part", "translate", "regexp_replace", "regexp_substr", "quote_ident",
		"quote_literal", "quote_nullable", "chr", "encode", "overlay", "regexp_split_to_table",
		"string_to_table", "sha256_hex", "array_to_string", "jsonb_typeof", "json_typeof", "to_hex":
		return "text"
	case "bool_and", "bool_or", "every", "starts_with", "isfinite":
		return "boolean"
	case "round", "trunc", "ceil", "ceiling", "floor", "sign", "sqrt", "cbrt", "exp", "ln", "log", "log10", "power", "pow", "mod":
		switch {
		case a0 == "numeric" || name == "round" && len(args) == 2 || name == "trunc" && len(args) == 2:
			return "numeric"
		case name == "mod" && isInt(a0):
			return a0
		case numRank[a0] > 0:
			return "double precision"
		}
	case "array_agg":
		return arrayOf(bare(0))
	case "array_remove", "array_replace", "array_append", "trim_array", "array_fill":
		if t := bare(0); strings.HasSuffix(t, "[]") {
			return t
		}
	case "array_prepend":
		if t := bare(1); strings.HasSuffix(t, "[]") {
			return t
		}
	case "array_cat":
		if t, u := bare(0), bare(1); strings.HasSuffix(t, "[]") && t == u {
			return t
		}
	case "date_bin":
		if a1 := arg(1); isTimestamp(a1) {
			return a1
		}
	case "unnest":
		if t := bare(0); strings.HasSuffix(t, "[]") {
			return strings.TrimSuffix(t, "[]")
		}
	case "generate_series":
		switch {
		case a0 == "date":
			return "timestamp with time zone"
		case isTimestamp(a0):
			return a0
		case numRank[a0] > 0 && len(args) >= 2:
			// generate_series(start, stop[, step]) of one numeric type:
			// the arguments' common one.
			t := args[0]
			for _, u := range args[1:] {
				t = commonType(t, u)
			}
			if ct := canonType(t); ct == "integer" || ct == "bigint" || ct == "numeric" {
				return ct
			}
		}
	case "generate_subscripts":
		return "integer"
	case "jsonb_array_elements", "jsonb_path_query", "jsonb_path_query_first", "jsonb_path_query_array", "jsonb_extract_path":
		return "jsonb"
	case "json_extract_path":
		return "json"
	case "jsonb_extract_path_text", "json_extract_path_text":
		return "text"
	case "jsonb_path_exists", "jsonb_path_match":
		return "boolean"
	case "json_array_elements":
		return "json"
	case "jsonb_array_elements_text", "json_array_elements_text", "jsonb_object_keys", "json_object_keys":
		return "text"
	case "json_agg", "json_build_object", "json_build_array", "to_json", "json_object_agg", "row_to_json", "array_to_json":
		return "json"
	case "jsonb_agg", "jsonb_build_object", "jsonb_build_array", "to_jsonb", "jsonb_object_agg", "jsonb_set", "jsonb_strip_nulls":
		return "jsonb"
	case "gen_random_uuid", "uuid_generate_v4":
		return "uuid"
	case "string_to_array", "regexp_split_to_array", "regexp_match", "regexp_matches":
		return "text[]"
	case "decode", "sha256", "digest":
		return "bytea"
	}
	return ""
}

// category is PostgreSQL's type category of t for the types it resolves
// against one another: 'N' numeric, 'S' string, 'B' boolean, 'D' date and
// timestamps, 'T' interval; 0 for any other type (or not known).
func category(t string) byte {
	switch c := canonType(t); {
	case numRank[c] > 0:
		return 'N'
	case c == "text" || c == "character varying" || c == "character":
		return 'S'
	case c == "boolean":
		return 'B'
	case c == "date" || isTimestamp(c):
		return 'D'
	case c == "interval":
		return 'T'
	}
	return 0
}

// typeName is t as PostgreSQL's messages name it (format_type_be): no
// modifiers, bpchar as character.
func typeName(t string) string {
	t = noMods(t)
	if t == "bpchar" {
		return "character"
	}
	return t
}

// comparison are the comparison operators.
var comparison = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true}

// operator reports, as PostgreSQL does, a binary operator that does not
// exist for the operands' types where no implicit conversion can make
// one: arithmetic on a string or boolean, a comparison across categories
// (integer = text).
func (b *binder) operator(op, lt, rt string, loc int32) {
	cl, cr := category(lt), category(rt)
	if cl == 0 || cr == 0 {
		return
	}
	bad := false
	switch op {
	case "+", "-", "*", "/", "%":
		ct, cu := canonType(lt), canonType(rt)
		bad = cl == 'S' || cl == 'B' || cr == 'S' || cr == 'B' ||
			// A timestamp or interval and a number: only date + integer
			// and interval * or / a number exist.
			(isTimestamp(ct) || cl == 'T') && cr == 'N' && !(cl == 'T' && (op == "*" || op == "/")) ||
			cl == 'N' && (isTimestamp(cu) || cr == 'T') && !(cr == 'T' && op == "*")
	case "=", "<>", "!=", "<", ">", "<=", ">=":
		bad = cl != cr
	}
	if bad {
		if op == "!=" {
			op = "<>"
		}
		b.fail("Binder", "UNDEFINED_FUNCTION", loc, "", nil,
			"operator does not exist: %s %s %s\nHINT: No operator matches the given name and argument types. You might need to add explicit type casts.",
			typeName(lt), op, typeName(rt))
	}
}

// literal reports, as the server does when it reads the literal, a string
// cast to a number type that holds no digit at all ('many'::int), which
// no version's input function takes; a number in any spelling passes.
func (b *binder) literal(c *pg_query.A_Const, typ string) {
	if c == nil || c.Isnull {
		return
	}
	sv, ok := c.Val.(*pg_query.A_Const_Sval)
	if !ok {
		return
	}
	ct := canonType(typ)
	if numRank[ct] == 0 || ct == "real" || ct == "double precision" {
		return
	}
	s := sv.Sval.GetSval()
	if strings.ContainsAny(s, "0123456789") {
		return
	}
	if ct == "numeric" {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "nan", "infinity", "+infinity", "-infinity", "inf", "+inf", "-inf":
			return
		}
	}
	b.fail("Conversion", "22P02", c.Location, "", nil, "invalid input syntax for type %s: \"%s\"", ct, s)
}

// withinGroupType is the result type of an ordered-set aggregate, args its
// direct arguments' types and sorted the WITHIN GROUP values' types.
func withinGroupType(name string, args, sorted []string) string {
	if len(sorted) != 1 {
		return ""
	}
	st := noMods(sorted[0])
	switch name {
	case "percentile_cont":
		switch canonType(st) {
		case "interval":
			if len(args) == 1 && strings.HasSuffix(args[0], "[]") {
				return "interval[]"
			}
			return "interval"
		}
		if numRank[canonType(st)] > 0 {
			if len(args) == 1 && strings.HasSuffix(args[0], "[]") {
				return "double precision[]"
			}
			return "double precision"
		}
	case "percentile_disc", "mode":
		if st == typUnknown || st == "" {
			return ""
		}
		if name == "percentile_disc" && len(args) == 1 && strings.HasSuffix(args[0], "[]") {
			return arrayOf(st)
		}
		return st
	case "rank", "dense_rank":
		return "bigint"
	case "percent_rank", "cume_dist":
		return "double precision"
	}
	return ""
}

// intervalFields are the interval field sets PostgreSQL's typmod encodes
// (a bit per field: MONTH 1, YEAR 2, DAY 3, HOUR 10, MINUTE 11, SECOND
// 12), as format_type names them.
var intervalFields = map[int]string{
	1 << 2: " year", 1 << 1: " month", 1 << 3: " day", 1 << 10: " hour", 1 << 11: " minute", 1 << 12: " second",
	1<<2 | 1<<1: " year to month", 1<<3 | 1<<10: " day to hour", 1<<3 | 1<<10 | 1<<11: " day to minute",
	1<<3 | 1<<10 | 1<<11 | 1<<12: " day to second", 1<<10 | 1<<11: " hour to minute",
	1<<10 | 1<<11 | 1<<12: " hour to second", 1<<11 | 1<<12: " minute to second",
	0x7FFF: "",
}

// intervalMods renders an interval's modifiers (the fields, then a
// seconds precision) as format_type does: " day", "(3)", " day to
// second(3)".
func intervalMods(mods []string) string {
	if len(mods) == 0 {
		return ""
	}
	f, err := strconv.Atoi(mods[0])
	fields, ok := intervalFields[f]
	if err != nil || !ok {
		return ""
	}
	if len(mods) == 2 {
		return fields + "(" + mods[1] + ")"
	}
	return fields
}
