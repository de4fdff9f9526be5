package sqlscan

import "strings"

// WriteIdent writes name as an SQL identifier that reads back as name on
// DuckDB and Postgres: bare when it is plain (a lower-case ASCII letter or
// _, then those and digits) and not a keyword that cannot stand bare as a
// column or alias (NeedsQuotes), otherwise double-quoted with embedded
// quotes doubled ("select", "Mixed Case", "dq""q"). Every writer of a
// name into SQL a user keeps (quick fixes, renames, completions, star
// expansion, header columns) goes through it.
func WriteIdent(name string) string {
	if isPlain(name) && !NeedsQuotes(name) {
		return name
	}
	return QuoteIdent(name)
}

// QuoteIdent double-quotes name, doubling embedded quotes.
func QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// NeedsQuotes reports whether word (any case) is a keyword of DuckDB or
// Postgres that is not unreserved: DuckDB's duckdb_keywords() of category
// reserved, type_function or column_name, and Postgres's reserved,
// type_func_name and col_name keywords. Such a word written bare is read
// as the keyword in some place a name stands (a column, an alias, a
// column of a header's columns (…)), so a name spelled so is quoted.
func NeedsQuotes(word string) bool {
	w := strings.ToLower(word)
	return reservedKeywords[w] || otherKeywords[w]
}

// IsReservedKeyword reports whether word (any case) is one of DuckDB's
// reserved or type_function keywords (duckdb_keywords()): words DuckDB
// never reads as a bare column name, so writing one in upper case renames
// nothing (Postgres folds every bare word to lower case anyway). The
// formatter upper-cases them where they stand as words.
func IsReservedKeyword(word string) bool { return reservedKeywords[strings.ToLower(word)] }

func isPlain(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// reservedKeywords are DuckDB's reserved and type_function keywords; a
// test in engine/duckdb checks them against duckdb_keywords().
var reservedKeywords = wordSet(`
	all analyse analyze and anti any array as asc asof asymmetric at authorization binary both
	by case cast check collate collation column columns concurrently constraint create cross
	default deferrable desc describe distinct do else end except false fetch for foreign freeze
	from full generated glob group having ilike in initially inner intersect into is isnull
	join lambda lateral leading left like limit map natural not notnull null offset on only or
	order outer overlaps pivot pivot_longer pivot_wider placing positional primary qualify
	references returning right select semi show similar some struct summarize symmetric table
	tablesample then to trailing true try_cast union unique unpack unpivot using variadic
	verbose when where window with`)

// otherKeywords are DuckDB's column_name keywords and Postgres's reserved,
// type_func_name and col_name keywords (its kwlist.h) not already in
// reservedKeywords.
var otherKeywords = wordSet(`
	between bigint bit boolean char character coalesce current_catalog current_date
	current_role current_schema current_time current_timestamp current_user dec decimal exists
	extract float grant greatest grouping grouping_id inout int integer interval json
	json_array json_arrayagg json_exists json_object json_objectagg json_query json_scalar
	json_serialize json_table json_value least localtime localtimestamp merge_action national
	nchar none normalize nullif numeric out overlay position precision real row session_user
	setof smallint substring system_user time timestamp treat trim user values varchar
	xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot
	xmlserialize xmltable`)
